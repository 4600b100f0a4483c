// SQL for process membership: registration, heartbeats and acknowledgements of the epoch.
import type pg from 'pg';

/** Registers a process and bumps the cluster epoch; returns the new epoch. */
export async function registerInstance(db: pg.Pool, id: string): Promise<number> {
  const res = await db.query(`
WITH reg AS (INSERT INTO instances (id, heartbeat_at) VALUES ($1, now()) RETURNING id)
UPDATE cluster_epoch SET epoch = epoch + 1 WHERE (SELECT count(*) FROM reg) = 1 RETURNING epoch`, [id]);
  return Number(res.rows[0].epoch);
}

export interface Beat { epoch: number; others: number; unacked: number }

/**
 * Refreshes this process's heartbeat and reads the cluster: the epoch, how many other processes
 * are alive, and how many of those have not yet acknowledged `epochToAck`.
 */
export async function heartbeat(db: pg.Pool, id: string, leaseMs: number, epochToAck: number): Promise<Beat> {
  const res = await db.query({
    name: 'instance_heartbeat',
    text: `
WITH me AS (UPDATE instances SET heartbeat_at = now() WHERE id = $1 RETURNING id)
SELECT (SELECT epoch FROM cluster_epoch) AS epoch,
       count(*) FILTER (WHERE id <> $1) AS others,
       count(*) FILTER (WHERE id <> $1 AND seen_epoch < $3) AS unacked,
       (SELECT count(*) FROM me) AS present
FROM instances WHERE heartbeat_at > now() - make_interval(secs => $2::float8 / 1000)`,
    values: [id, leaseMs, epochToAck],
  });
  const r = res.rows[0];
  if (Number(r.present) !== 1) throw new Error('this process is no longer registered');
  return { epoch: Number(r.epoch), others: Number(r.others), unacked: Number(r.unacked) };
}

export async function acknowledgeEpoch(db: pg.Pool, id: string, epoch: number): Promise<void> {
  await db.query('UPDATE instances SET seen_epoch = GREATEST(seen_epoch, $2) WHERE id = $1', [id, epoch]);
}

export async function deregisterInstance(db: pg.Pool, id: string): Promise<void> {
  await db.query('DELETE FROM instances WHERE id = $1', [id]);
}

/** Forgets processes whose lease ran out long ago (crashed ones). */
export async function pruneInstances(db: pg.Pool): Promise<void> {
  await db.query("DELETE FROM instances WHERE heartbeat_at < now() - interval '1 hour'");
}

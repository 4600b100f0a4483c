// Figures read from Postgres at scrape time: the same on every process (they describe the shared
// database, not the process). One statement, bounded; on failure the gauges are left out and
// db_gauges_up is 0, so /metrics keeps answering while Postgres is away.
import type pg from 'pg';

export interface DatabaseFigures {
  /** Deliveries due now (pending, next attempt in the past) and all not yet delivered (pending or being delivered). */
  webhooksDue: number;
  webhooksUndelivered: number;
  /** Age of the oldest delivery not yet delivered, seconds (0 when none). */
  webhooksOldestSeconds: number;
  /** How late the most overdue due delivery is (the outbox lag), seconds. */
  outboxLagSeconds: number;
  /** How late the most overdue pending payment's expiry is (the expiry scheduler's lag), seconds. */
  expiryLagSeconds: number;
  /** Connector attempts recorded and not settled (payments.pending_attempt), and the oldest one's age. */
  attemptsOpen: number;
  attemptsOldestSeconds: number;
  /** Reconciliation differences not yet resolved or ignored, by kind. */
  reconciliationOpen: Record<string, number>;
  /** Seconds since the latest reconciliation run completed (none yet: since the earliest attempt; 0 without attempts). */
  reconciliationLastRunAge: number;
}

// Objects on a test clock (issue 26) wait on their clock, not on the real time: they are left out
// of the due counts and lag figures, which would otherwise alarm on a clock set in the past.
export const DATABASE_FIGURES_SQL = `
SELECT
  (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now() AND test_clock_id IS NULL)::int AS due,
  (SELECT count(*) FROM webhook_deliveries WHERE status IN ('pending', 'delivering'))::int AS undelivered,
  COALESCE((SELECT extract(epoch FROM now() - min(created_at)) FROM webhook_deliveries WHERE status IN ('pending', 'delivering') AND test_clock_id IS NULL), 0)::float8 AS oldest,
  COALESCE((SELECT extract(epoch FROM now() - min(next_attempt_at)) FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now() AND test_clock_id IS NULL), 0)::float8 AS outbox_lag,
  COALESCE((SELECT extract(epoch FROM now() - min(due_at)) FROM payments WHERE due_at <= now() AND status = 'pending' AND test_clock_id IS NULL), 0)::float8 AS expiry_lag,
  (SELECT count(*) FROM connector_attempts WHERE status = 'started')::int AS attempts_open,
  COALESCE((SELECT extract(epoch FROM now() - min(created_at)) FROM connector_attempts WHERE status = 'started'), 0)::float8 AS attempts_oldest,
  (SELECT COALESCE(jsonb_object_agg(kind, n), '{}') FROM (SELECT kind, count(*)::int AS n FROM reconciliation_differences WHERE status = 'open' GROUP BY kind) k) AS recon_open,
  COALESCE(extract(epoch FROM now() - COALESCE((SELECT max(finished_at) FROM reconciliation_runs WHERE status = 'completed'),
                                               (SELECT min(created_at) FROM connector_attempts))), 0)::float8 AS recon_age`;

export async function readDatabaseFigures(db: pg.Pool): Promise<DatabaseFigures> {
  const r = (await db.query({ name: 'metrics_database_figures', text: DATABASE_FIGURES_SQL })).rows[0];
  return {
    webhooksDue: r.due, webhooksUndelivered: r.undelivered, webhooksOldestSeconds: r.oldest, outboxLagSeconds: r.outbox_lag,
    expiryLagSeconds: r.expiry_lag, attemptsOpen: r.attempts_open, attemptsOldestSeconds: r.attempts_oldest,
    reconciliationOpen: r.recon_open, reconciliationLastRunAge: r.recon_age,
  };
}

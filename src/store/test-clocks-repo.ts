// SQL for test clocks (issue 26). A clock's frozen_time is the "now" of every object on it: the
// schedulers compare those objects' due times with it (COALESCE(clock, now()) in their one sweep
// query); this file holds the clock rows themselves, the advance, and the step that marks an
// advancing clock ready once nothing on it is due any more.
import type pg from 'pg';
import type { TestClock } from '../domain/test-clock.js';
import { isoInstant } from '../domain/instant.js';

interface ClockRow { id: string; merchant_id: string; name: string | null; frozen_time: Date; status: TestClock['status']; created_at: Date }

const toClock = (r: ClockRow): TestClock => ({
  id: r.id, merchantId: r.merchant_id, name: r.name, frozenTime: r.frozen_time.getTime(), status: r.status, createdAt: r.created_at.getTime(),
});

export async function insertTestClock(db: pg.Pool, c: TestClock): Promise<TestClock> {
  const res = await db.query<ClockRow>(
    `INSERT INTO test_clocks (id, merchant_id, name, frozen_time, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'ready', $5, $5) RETURNING *`,
    [c.id, c.merchantId, c.name, isoInstant(c.frozenTime), isoInstant(c.createdAt)]);
  return toClock(res.rows[0]);
}

/** The merchant's clock with this id, else null (another merchant's clock is not found). */
export async function findTestClock(db: pg.Pool, merchantId: string, id: string): Promise<TestClock | null> {
  const res = await db.query<ClockRow>('SELECT * FROM test_clocks WHERE id = $1 AND merchant_id = $2', [id, merchantId]);
  return res.rows[0] ? toClock(res.rows[0]) : null;
}

/** Newest first; `startingAfter` is the id of the last clock of the previous page. */
export async function listTestClocks(db: pg.Pool, merchantId: string, limit: number, startingAfter?: string): Promise<{ clocks: TestClock[]; hasMore: boolean }> {
  const res = await db.query<ClockRow>(
    `SELECT * FROM test_clocks WHERE merchant_id = $1
       AND ($3::text IS NULL OR (created_at, id) < (SELECT created_at, id FROM test_clocks WHERE id = $3 AND merchant_id = $1))
     ORDER BY created_at DESC, id DESC LIMIT $2`, [merchantId, limit + 1, startingAfter ?? null]);
  const rows = res.rows.map(toClock);
  return { clocks: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** Deletes a ready clock (its objects are detached: ON DELETE SET NULL). 'advancing' when it is moving. */
export async function deleteTestClock(db: pg.Pool, merchantId: string, id: string): Promise<'deleted' | 'advancing' | 'not_found'> {
  const res = await db.query(`DELETE FROM test_clocks WHERE id = $1 AND merchant_id = $2 AND status = 'ready'`, [id, merchantId]);
  if (res.rowCount === 1) return 'deleted';
  return (await findTestClock(db, merchantId, id)) ? 'advancing' : 'not_found';
}

/**
 * Moves a ready clock to `to` and marks it advancing, in one commit; null when it was not ready at
 * its `from` time any more (another advance came first). Wakes every process's webhook dispatchers.
 */
export async function advanceTestClock(db: pg.Pool, c: TestClock, to: number): Promise<TestClock | null> {
  const res = await db.query<ClockRow>(
    `UPDATE test_clocks SET frozen_time = $3, status = 'advancing', updated_at = now()
     WHERE id = $1 AND merchant_id = $2 AND status = 'ready' AND frozen_time = $4 RETURNING *`,
    [c.id, c.merchantId, isoInstant(to), isoInstant(c.frozenTime)]);
  if (!res.rows[0]) return null;
  await db.query(`SELECT pg_notify('webhook_due', '')`);
  return toClock(res.rows[0]);
}

/** The clock's time (epoch ms), or null when the clock no longer exists (deleted: its objects are detached). */
export async function clockTime(db: pg.Pool, id: string): Promise<number | null> {
  const res = await db.query<{ frozen_time: Date }>({ name: 'test_clock_time', text: 'SELECT frozen_time FROM test_clocks WHERE id = $1', values: [id] });
  return res.rows[0] ? res.rows[0].frozen_time.getTime() : null;
}

/**
 * Marks ready every advancing clock on which nothing is due any more: no pending payment past its
 * window, no authorization past its hold, no webhook delivery due or in flight. Run at the end of
 * every expiry sweep of every process, so an advance whose process died is finished by another.
 */
export async function settleAdvancingClocks(db: pg.Pool): Promise<string[]> {
  const res = await db.query({
    name: 'test_clocks_settle',
    text: `UPDATE test_clocks c SET status = 'ready', updated_at = now()
     WHERE c.status = 'advancing'
       AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.test_clock_id = c.id AND p.expires_at <= c.frozen_time AND p.status IN ('pending', 'authorized'))
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.test_clock_id = c.id
                         AND (d.status = 'delivering' OR (d.status = 'pending' AND d.next_attempt_at <= c.frozen_time)))
     RETURNING c.id`,
  });
  return res.rows.map((r) => r.id as string);
}

/**
 * The "now" of a row that may be on a clock, as SQL: the clock's frozen_time, else Postgres's now().
 * `due(col, clockCol)` is the condition every scheduler's sweep uses: the first bound (the latest of
 * now() and every clock's time, computed once) keeps the due-time index usable; the second is exact.
 */
export const nowOf = (clockCol: string): string =>
  `CASE WHEN ${clockCol} IS NULL THEN now() ELSE (SELECT tc.frozen_time FROM test_clocks tc WHERE tc.id = ${clockCol}) END`;

export const due = (col: string, clockCol: string): string =>
  `(${col} <= GREATEST(now(), (SELECT max(frozen_time) FROM test_clocks)) AND ${col} <= ${nowOf(clockCol)})`;

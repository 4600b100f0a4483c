// SQL of reconciliation (issue 26): runs claim windows (a unique window_start, leases for takeover),
// the engine's side of a window, and the differences, recorded once per key and kind.
import type pg from 'pg';
import { prefixedId } from '../domain/ids.js';
import {
  engineOutcomeOf, operationKind, type BankOperation, type Difference, type DifferenceKind, type EngineOperation,
} from '../domain/reconciliation.js';
import { isoInstant } from '../domain/instant.js';

export interface Run {
  id: string;
  windowStart: number;
  windowEnd: number;
  status: 'running' | 'completed';
  tries: number;
}

export interface WindowPolicy {
  /** Size of a window, ms. */
  windowMs: number;
  /** A window is reconciled once its end is this long past (at least the recovery delay). */
  delayMs: number;
  /** How much longer a window waits for its attempts still open (the recovery sweep's work). */
  openWaitMs: number;
  leaseSeconds: number;
}

const ms = (col: string) => `(extract(epoch FROM ${col}) * 1000)::float8`;
const RUN_COLUMNS = `id, ${ms('window_start')} AS window_start, ${ms('window_end')} AS window_end, status, tries`;
const toRun = (r: Record<string, any>): Run => ({ id: r.id, windowStart: r.window_start, windowEnd: r.window_end, status: r.status, tries: r.tries });

/** A running run whose claimant's lease ended (it died, or its try failed): taken over by `me`. */
export async function claimStaleRun(db: pg.Pool, me: string, leaseSeconds: number): Promise<Run | null> {
  const res = await db.query({
    name: 'recon_claim_stale',
    text: `UPDATE reconciliation_runs SET lease_until = now() + make_interval(secs => $2), claimed_by = $1, tries = tries + 1
           WHERE id = (SELECT id FROM reconciliation_runs WHERE status = 'running' AND lease_until < now()
                       ORDER BY window_start LIMIT 1 FOR UPDATE SKIP LOCKED)
           RETURNING ${RUN_COLUMNS}`,
    values: [me, leaseSeconds],
  });
  return res.rows[0] ? toRun(res.rows[0]) : null;
}

export type NextWindow = { run: Run } | { waiting: 'not_closed' | 'open_attempts' | 'taken'; start: number; end: number };

/**
 * Claims the window after the latest run's (the first one starts at the window of the earliest
 * attempt, or, with none, at the last closed window), once it is closed: its end `delayMs` past and
 * none of its attempts still open (or `openWaitMs` more past). Times are Postgres' own. `taken`: another
 * process claimed that window first.
 */
export async function claimNextWindow(db: pg.Pool, me: string, p: WindowPolicy): Promise<NextWindow> {
  const head = (await db.query({
    name: 'recon_head',
    text: `SELECT ${ms('now()')} AS now, (SELECT ${ms('max(window_end)')} FROM reconciliation_runs) AS last_end,
                  (SELECT ${ms('min(created_at)')} FROM connector_attempts) AS first_attempt`,
  })).rows[0] as { now: number; last_end: number | null; first_attempt: number | null };
  const floor = (t: number) => Math.floor(t / p.windowMs) * p.windowMs;
  const start = head.last_end ?? (head.first_attempt !== null ? floor(head.first_attempt) : floor(head.now - p.delayMs) - p.windowMs);
  const end = floor(start) + p.windowMs;
  if (end > head.now - p.delayMs) return { waiting: 'not_closed', start, end };
  if (end > head.now - p.delayMs - p.openWaitMs) {
    const open = await db.query({
      name: 'recon_open_attempts',
      text: `SELECT 1 FROM connector_attempts WHERE status = 'started' AND created_at >= $1 AND created_at < $2 LIMIT 1`,
      values: [isoInstant(start), isoInstant(end)],
    });
    if (open.rowCount) return { waiting: 'open_attempts', start, end };
  }
  const res = await db.query({
    name: 'recon_claim_window',
    text: `INSERT INTO reconciliation_runs (id, window_start, window_end, status, lease_until, claimed_by)
           VALUES ($1, $2, $3, 'running', now() + make_interval(secs => $5), $4)
           ON CONFLICT (window_start) DO NOTHING RETURNING ${RUN_COLUMNS}`,
    values: [prefixedId('rcn', 20), isoInstant(start), isoInstant(end), me, p.leaseSeconds],
  });
  return res.rows[0] ? { run: toRun(res.rows[0]) } : { waiting: 'taken', start, end };
}

const ATTEMPT_COLUMNS = `id, aggregate_id, operation, connector, amount::float8 AS amount, currency, status, result->>'kind' AS result_kind, ${ms('created_at')} AS at,
  CASE WHEN status = 'started' THEN NULL ELSE ${ms('updated_at')} END AS settled_at`;

function toEngine(r: Record<string, any>): EngineOperation {
  return {
    key: r.id, aggregateId: r.aggregate_id, connector: r.connector, kind: operationKind(r.operation) ?? 'charge',
    amount: Number(r.amount), currency: r.currency, outcome: engineOutcomeOf(r.status, r.result_kind), at: r.at,
    settledAt: r.settled_at,
  };
}

/** The engine's attempts created in [start, end). */
export async function windowAttempts(db: pg.Pool, start: number, end: number): Promise<EngineOperation[]> {
  const res = await db.query({
    name: 'recon_window_attempts',
    text: `SELECT ${ATTEMPT_COLUMNS} FROM connector_attempts WHERE created_at >= $1 AND created_at < $2`,
    values: [isoInstant(start), isoInstant(end)],
  });
  return res.rows.map(toEngine);
}

/** The engine's attempts under these keys, whenever they were created. */
export async function attemptsByKeys(db: pg.Pool, keys: string[]): Promise<Map<string, EngineOperation>> {
  if (!keys.length) return new Map();
  const res = await db.query({ name: 'recon_attempts_by_keys', text: `SELECT ${ATTEMPT_COLUMNS} FROM connector_attempts WHERE id = ANY($1)`, values: [keys] });
  return new Map(res.rows.map((r) => [r.id as string, toEngine(r)]));
}

const side = (o: EngineOperation | BankOperation | null) => o && ({
  kind: o.kind, amount: o.amount, currency: o.currency, outcome: o.outcome, at: isoInstant(o.at),
});

/** Records the differences of `runId` that no run recorded before (one per key and kind); how many were new. */
export async function recordDifferences(db: pg.Pool, runId: string, diffs: Difference[], connectorOf: (d: Difference) => string): Promise<number> {
  if (!diffs.length) return 0;
  const res = await db.query({
    name: 'recon_record_differences',
    text: `INSERT INTO reconciliation_differences (id, run_id, idempotency_key, kind, connector, aggregate_id, engine, bank)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::jsonb[])
           ON CONFLICT (idempotency_key, kind) DO NOTHING`,
    values: [
      diffs.map(() => prefixedId('rcd', 20)), diffs.map(() => runId), diffs.map((d) => d.key), diffs.map((d) => d.kind),
      diffs.map(connectorOf), diffs.map((d) => d.engine?.aggregateId ?? null),
      diffs.map((d) => JSON.stringify(side(d.engine))), diffs.map((d) => JSON.stringify(side(d.bank))),
    ],
  });
  return res.rowCount ?? 0;
}

/** Closes the run if `me` still holds it; false when another process took it over meanwhile. */
export async function completeRun(db: pg.Pool, runId: string, me: string, counts: { attempts: number; bank: number }): Promise<boolean> {
  const res = await db.query({
    name: 'recon_complete',
    text: `UPDATE reconciliation_runs SET status = 'completed', finished_at = now(), lease_until = NULL, last_error = NULL,
             attempts_checked = $3, bank_operations = $4,
             differences = (SELECT count(*) FROM reconciliation_differences WHERE run_id = $1)
           WHERE id = $1 AND claimed_by = $2 AND status = 'running'`,
    values: [runId, me, counts.attempts, counts.bank],
  });
  return res.rowCount === 1;
}

/** A failed try: the run stays running, and is taken over when its (shortened) lease ends. */
export async function failRun(db: pg.Pool, runId: string, me: string, error: string, retrySeconds: number): Promise<void> {
  await db.query({
    name: 'recon_fail',
    text: `UPDATE reconciliation_runs SET last_error = $3, lease_until = now() + make_interval(secs => $4)
           WHERE id = $1 AND claimed_by = $2 AND status = 'running'`,
    values: [runId, me, error.slice(0, 1000), retrySeconds],
  });
}

// ---- operator reads and the resolved/ignored flag ----

export interface RunView {
  id: string; object: 'reconciliation_run'; window_start: string; window_end: string; status: string;
  attempts_checked: number; bank_operations: number; differences: number; open_differences: number;
  tries: number; last_error: string | null; created_at: string; finished_at: string | null;
}

export interface DifferenceView {
  id: string; object: 'reconciliation_difference'; run_id: string; idempotency_key: string; kind: DifferenceKind;
  connector: string; aggregate_id: string | null; engine: unknown; bank: unknown;
  status: 'open' | 'resolved' | 'ignored'; note: string | null; status_changed_at: string | null; created_at: string;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const RUN_VIEW = `SELECT r.*, (SELECT count(*)::int FROM reconciliation_differences d WHERE d.run_id = r.id AND d.status = 'open') AS open_differences
                  FROM reconciliation_runs r`;

function runView(r: Record<string, any>): RunView {
  return {
    id: r.id, object: 'reconciliation_run', window_start: r.window_start.toISOString(), window_end: r.window_end.toISOString(), status: r.status,
    attempts_checked: r.attempts_checked, bank_operations: r.bank_operations, differences: r.differences, open_differences: r.open_differences,
    tries: r.tries, last_error: r.last_error, created_at: r.created_at.toISOString(), finished_at: iso(r.finished_at),
  };
}

function differenceView(r: Record<string, any>): DifferenceView {
  return {
    id: r.id, object: 'reconciliation_difference', run_id: r.run_id, idempotency_key: r.idempotency_key, kind: r.kind, connector: r.connector,
    aggregate_id: r.aggregate_id, engine: r.engine, bank: r.bank, status: r.status, note: r.note,
    status_changed_at: iso(r.status_changed_at), created_at: r.created_at.toISOString(),
  };
}

/** Newest windows first; `before`: only windows that start before this run's. */
export async function listRuns(db: pg.Pool, limit: number, before: string | null): Promise<{ data: RunView[]; hasMore: boolean }> {
  const res = await db.query(`${RUN_VIEW} WHERE ($2::text IS NULL OR r.window_start < (SELECT window_start FROM reconciliation_runs WHERE id = $2))
                              ORDER BY r.window_start DESC LIMIT $1`, [limit + 1, before]);
  return { data: res.rows.slice(0, limit).map(runView), hasMore: res.rows.length > limit };
}

export async function getRun(db: pg.Pool, id: string): Promise<(RunView & { difference_list: DifferenceView[] }) | null> {
  const res = await db.query(`${RUN_VIEW} WHERE r.id = $1`, [id]);
  if (!res.rows[0]) return null;
  const diffs = await db.query('SELECT * FROM reconciliation_differences WHERE run_id = $1 ORDER BY created_at, id', [id]);
  return { ...runView(res.rows[0]), difference_list: diffs.rows.map(differenceView) };
}

export async function listDifferences(db: pg.Pool, status: string | null, limit: number): Promise<DifferenceView[]> {
  const res = await db.query(`SELECT * FROM reconciliation_differences WHERE ($1::text IS NULL OR status = $1)
                              ORDER BY created_at DESC, id LIMIT $2`, [status, limit]);
  return res.rows.map(differenceView);
}

/** Marks a difference resolved, ignored or open again, with the operator's note. */
export async function setDifferenceStatus(db: pg.Pool, id: string, status: 'open' | 'resolved' | 'ignored', note: string | null): Promise<DifferenceView | null> {
  const res = await db.query(`UPDATE reconciliation_differences SET status = $2, note = $3, status_changed_at = now() WHERE id = $1 RETURNING *`, [id, status, note]);
  return res.rows[0] ? differenceView(res.rows[0]) : null;
}

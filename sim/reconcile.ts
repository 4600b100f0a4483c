// Check (e), reconciliation (issue 26): on a day of faults and nothing else (no bank record changed
// behind the engine's back) the engine and the sandbox bank agree. Two ways: the comparison of the
// reconciler over the whole run as one window, read directly from Postgres once everything settled;
// and every difference the servers' own reconcilers recorded while the faults ran (none allowed).
import type pg from 'pg';
import { SandboxLedger } from '../src/connectors/sandbox/ledger.js';
import { compareWindow } from '../src/domain/reconciliation.js';
import { windowAttempts } from '../src/store/reconciliation-repo.js';
import type { Violation } from './checker.js';

export async function checkReconciliation(db: pg.Pool): Promise<{ violations: Violation[]; runs: number }> {
  const now = Number((await db.query('SELECT (extract(epoch FROM now()) * 1000)::float8 AS now')).rows[0].now);
  const end = now + 1000;
  const engine = await windowAttempts(db, 0, end);
  const bank = await new SandboxLedger(db).report(0, end);
  const out: Violation[] = [];
  for (const d of compareWindow({ start: 0, end, tolerance: end }, engine, bank, new Map())) {
    out.push({ check: 'e', cls: `reconciliation finds ${d.kind}`, op: null, detail: `key ${d.key}`, rows: d });
  }
  const recorded = await db.query('SELECT run_id, idempotency_key, kind, engine, bank FROM reconciliation_differences');
  for (const r of recorded.rows) out.push({ check: 'e', cls: `a server's reconciliation run recorded ${r.kind}`, op: null, detail: `key ${r.idempotency_key} in ${r.run_id}`, rows: r });
  const runs = Number((await db.query("SELECT count(*) AS n FROM reconciliation_runs WHERE status = 'completed'")).rows[0].n);
  return { violations: out, runs };
}

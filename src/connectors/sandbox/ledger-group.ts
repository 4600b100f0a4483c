// The sandbox ledger's writes, grouped: the results of one thread's bank calls that arrive together
// are recorded by one `INSERT … SELECT FROM unnest(…) ON CONFLICT DO NOTHING RETURNING`, and the
// calls whose key (or operation and reference) a row already holds read their winner with one more
// grouped statement. A group leaves at the end of the current turn of the event loop, or, while
// `maxInflight` statements run, as soon as one of them ends (calls gather meanwhile).
//
// Row isolation: a statement Postgres refuses for its data is split in halves and tried again, so
// one bad row fails its own call alone. Two calls of one group with the same key (or operation and
// reference) are never in one statement: the first is recorded, the later ones read what it
// recorded, as they would have one after the other; if the first failed, they go again on their own.
// Re-running a ledger insert is harmless (the key is its arbiter), which is what makes this safe.
import { performance } from 'node:perf_hooks';
import type pg from 'pg';

/** A result as the ledger stores it (JSON). */
export type Recorded = { kind: string };

export interface Row { key: string; operation: string; reference: string | null; amount: number; currency: string }

interface Pending { e: Row; result: Recorded; moved: boolean; resolve(v: Recorded): void; reject(err: unknown): void }

/**
 * What this thread spent in the sandbox bank since it started (exported per shard in /metrics as
 * sandbox_bank_*): the bank stands for a remote acquirer, so its cost is reported apart from the
 * engine's. `callSeconds` is callers' wall time inside bank calls (decision, queueing, statements);
 * `statementSeconds` the time of the ledger's statements; `rows` the calls those statements carried.
 */
export const sandboxBankStats = { calls: 0, callSeconds: 0, statements: 0, statementSeconds: 0, rows: 0 };

export async function timed<T>(f: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  sandboxBankStats.calls++;
  try {
    return await f();
  } finally {
    sandboxBankStats.callSeconds += (performance.now() - t0) / 1000;
  }
}

/** Whether Postgres refused the statement for what it carried (nothing committed), as rolledBack in src/store/db.ts. */
const refused = (err: unknown): boolean => /^(22|23|42|54)[0-9A-Z]{3}$/.test(String((err as { code?: unknown })?.code));
const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/** Runs `f` on all items; a refused group is split until the refusing rows fail alone. */
async function isolated<T, O>(items: T[], f: (xs: T[]) => Promise<O[]>): Promise<(O | Error)[]> {
  try {
    return await f(items);
  } catch (err) {
    if (items.length === 1 || !refused(err)) return items.map(() => asError(err));
    const half = Math.ceil(items.length / 2);
    return [...await isolated(items.slice(0, half), f), ...await isolated(items.slice(half), f)];
  }
}

const INSERT_SQL = `
INSERT INTO sandbox_ledger (idempotency_key, operation, reference, amount, currency, moved, result)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::boolean[], $7::jsonb[])
ON CONFLICT DO NOTHING
RETURNING idempotency_key AS key`;

// The first entry (by created_at) that holds the key, or the operation's reference.
const WINNERS_SQL = `
SELECT w.result FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS u(k, op, ref, i)
LEFT JOIN LATERAL (
  SELECT l.result FROM sandbox_ledger l
  WHERE l.idempotency_key = u.k OR (u.ref IS NOT NULL AND l.operation = u.op AND l.reference = u.ref)
  ORDER BY l.created_at, l.idempotency_key LIMIT 1
) w ON true
ORDER BY u.i`;

export class LedgerGroup {
  private queue: Pending[] = [];
  private inflight = 0;
  private scheduled = false;

  constructor(private readonly db: pg.Pool, private readonly maxBatch: number, private readonly maxInflight: number) {
    if (maxBatch < 1 || maxInflight < 1) throw new Error('maxBatch and maxInflight must be at least 1');
  }

  /** Records `result` under the entry's key unless a row holds it already; the result that stands. */
  record(e: Row, result: Recorded, moved: boolean): Promise<Recorded> {
    return new Promise((resolve, reject) => {
      this.queue.push({ e, result, moved, resolve, reject });
      this.schedule();
    });
  }

  /** The result that stands for each entry (null where none does): one statement. */
  async winners(es: Row[]): Promise<(Recorded | null)[]> {
    const res = await this.statement<{ result: Recorded | null }>('sandbox_ledger_winners', WINNERS_SQL,
      [es.map((e) => e.key), es.map((e) => e.operation), es.map((e) => e.reference)], es.length);
    return res.rows.map((r) => r.result);
  }

  private schedule(): void {
    if (this.scheduled || this.inflight >= this.maxInflight) return;
    this.scheduled = true;
    setImmediate(() => { this.scheduled = false; this.flush(); });
  }

  private flush(): void {
    while (this.queue.length > 0 && this.inflight < this.maxInflight) void this.run(this.queue.splice(0, this.maxBatch));
  }

  private async run(batch: Pending[]): Promise<void> {
    this.inflight++;
    try {
      await this.settle(batch);
    } catch (err) {
      for (const p of batch) p.reject(err); // not reached: settle answers every call itself
    } finally {
      this.inflight--;
      this.flush();
    }
  }

  private async settle(batch: Pending[]): Promise<void> {
    // Leaders: the first call of the group for each key and each (operation, reference).
    const leaders: Pending[] = [];
    const followers: { p: Pending; leader: Pending }[] = [];
    const byKey = new Map<string, Pending>();
    const byRef = new Map<string, Pending>();
    for (const p of batch) {
      const rk = p.e.reference === null ? null : `${p.e.operation}\u0000${p.e.reference}`;
      const leader = byKey.get(p.e.key) ?? (rk === null ? undefined : byRef.get(rk));
      if (leader) { followers.push({ p, leader }); continue; }
      leaders.push(p);
      byKey.set(p.e.key, p);
      if (rk !== null) byRef.set(rk, p);
    }
    const held: Pending[] = [];
    const failed = new Set<Pending>();
    const inserted = await isolated(leaders, (ps) => this.insert(ps));
    leaders.forEach((p, i) => {
      const o = inserted[i];
      if (o instanceof Error) { failed.add(p); p.reject(o); } else if (o) p.resolve(p.result); else held.push(p);
    });
    const again: Pending[] = [];
    for (const { p, leader } of followers) (failed.has(leader) ? again : held).push(p);
    if (again.length > 0) { this.queue.unshift(...again); this.schedule(); }
    if (held.length === 0) return;
    // Another call recorded this key (or this reference) first: theirs is the bank's answer.
    const won = await isolated(held, (ps) => this.winners(ps.map((p) => p.e)));
    held.forEach((p, i) => {
      const w = won[i];
      if (w instanceof Error) p.reject(w);
      else if (w === null) p.reject(new Error(`sandbox ledger: ${p.e.key} conflicted but no entry holds it`));
      else p.resolve(w);
    });
  }

  /** Whether each call's row was inserted (false: its key or reference was already held). */
  private async insert(ps: Pending[]): Promise<boolean[]> {
    const res = await this.statement<{ key: string }>('sandbox_ledger_insert', INSERT_SQL, [
      ps.map((p) => p.e.key), ps.map((p) => p.e.operation), ps.map((p) => p.e.reference), ps.map((p) => p.e.amount),
      ps.map((p) => p.e.currency), ps.map((p) => p.moved), ps.map((p) => JSON.stringify(p.result)),
    ], ps.length);
    const keys = new Set(res.rows.map((r) => r.key));
    return ps.map((p) => keys.has(p.e.key));
  }

  private async statement<T extends pg.QueryResultRow>(name: string, text: string, values: unknown[], rows: number): Promise<pg.QueryResult<T>> {
    const s = sandboxBankStats;
    const t0 = performance.now();
    s.statements++;
    s.rows += rows;
    try {
      return await this.db.query<T>({ name, text, values });
    } finally {
      s.statementSeconds += (performance.now() - t0) / 1000;
    }
  }
}

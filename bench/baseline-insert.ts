// Baseline B, as issue 13 defines it: raw single-row autocommit INSERTs of a 500-byte row (text
// primary key plus one unique index, like a payment's id and idempotency key) through a named
// prepared statement on a `pg.Pool` of 64 (BENCH_INSERT_CONNECTIONS), run as a child process: as
// many closed loops as the pool has connections, each one statement = one transaction; after a
// warm-up the loops are timed for BENCH_SECONDS.
// Env: DATABASE_URL (required), BENCH_SECONDS, BENCH_WARMUP_SECONDS, BENCH_INSERT_CONNECTIONS,
// BENCH_INSERT_TABLE = durable (default: an ordinary WAL-logged table, like the payments table)
// or temp (a TEMP table per connection: no WAL, commits do not wait for fsync, so it overstates).
// Prints one JSON line with the result on stdout.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { percentile } from './stats.js';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const connections = Number(process.env.BENCH_INSERT_CONNECTIONS ?? 64);
const tableKind = process.env.BENCH_INSERT_TABLE === 'temp' ? 'temp' : 'durable';

const TABLE = 'bench_payment_row';
const columns = `(
  id text PRIMARY KEY, merchant_id text NOT NULL, amount bigint NOT NULL, currency text NOT NULL,
  status text NOT NULL, order_id text, idempotency_key text NOT NULL, payload text NOT NULL, created_at timestamptz NOT NULL,
  UNIQUE (merchant_id, idempotency_key))`;
const insert = {
  name: 'bench_insert',
  text: `INSERT INTO ${TABLE} (id, merchant_id, amount, currency, status, order_id, idempotency_key, payload, created_at)
         VALUES ($1, 'mer_bench', $2, 'AZN', 'pending', $3, $4, $5, now())`,
};
/** Fills the row to ROW_BYTES of column data (the other columns take about 110 bytes). */
const ROW_BYTES = 500;
const PAYLOAD = 'x'.repeat(ROW_BYTES - 110);

let phase: 'warmup' | 'measure' | 'stop' = 'warmup';
let rows = 0;
let failures = 0;
const latenciesMs: number[] = [];
const prefix = randomBytes(4).toString('hex');
let seq = 0;

async function loop(db: pg.Pool | pg.PoolClient): Promise<void> {
  while (phase !== 'stop') {
    const n = seq++;
    const t0 = process.hrtime.bigint();
    try {
      await db.query({ ...insert, values: [`pay_${prefix}_${String(n).padStart(16, '0')}`, 4900, `order-${n}`, `idem-${prefix}-${n}-${randomBytes(8).toString('hex')}`, PAYLOAD] });
    } catch {
      if (phase === 'measure') failures++;
      continue;
    }
    if (phase === 'measure') {
      rows++;
      latenciesMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
}

async function main(): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: connections, connectionTimeoutMillis: 5000 });
  pool.on('error', () => {});
  const clients: pg.PoolClient[] = [];
  let loops: Promise<void>[];
  if (tableKind === 'durable') {
    await pool.query(`DROP TABLE IF EXISTS ${TABLE}; CREATE TABLE ${TABLE} ${columns}`);
    // The pool as the server uses it: each loop takes any free connection per statement.
    loops = Array.from({ length: connections }, () => loop(pool));
  } else {
    // A TEMP table lives in one connection: each loop keeps its own.
    for (let i = 0; i < connections; i++) {
      const c = await pool.connect();
      await c.query(`CREATE TEMP TABLE ${TABLE} ${columns}`);
      clients.push(c);
    }
    loops = clients.map(loop);
  }
  await new Promise((r) => setTimeout(r, warmupSeconds * 1000));
  phase = 'measure';
  const started = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  phase = 'stop';
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  await Promise.all(loops);
  for (const c of clients) c.release();
  if (tableKind === 'durable') await pool.query(`DROP TABLE IF EXISTS ${TABLE}`);
  await pool.end();
  latenciesMs.sort((a, b) => a - b);
  process.stdout.write(JSON.stringify({
    msg: 'result', table: tableKind, connections, seconds: elapsed, rows, failures,
    rowsPerSecond: rows / elapsed, p50: percentile(latenciesMs, 50), p99: percentile(latenciesMs, 99),
  }) + '\n');
}

main().then(() => process.exit(0), (err) => {
  process.stderr.write(`baseline-insert: ${(err as Error).message}\n`);
  process.exit(1);
});

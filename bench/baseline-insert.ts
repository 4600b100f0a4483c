// Baseline B: raw single-row autocommit INSERT throughput of the benchmark's Postgres through `pg`,
// run as a child process. A fixed number of connections each insert in a closed loop (one
// statement = one transaction); after a warm-up the loops are timed for BENCH_SECONDS.
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
const connections = Number(process.env.BENCH_INSERT_CONNECTIONS ?? 32);
const tableKind = process.env.BENCH_INSERT_TABLE === 'temp' ? 'temp' : 'durable';

const TABLE = 'bench_payment_row';
const columns = `(
  id text PRIMARY KEY, merchant_id text NOT NULL, amount bigint NOT NULL, currency text NOT NULL,
  status text NOT NULL, order_id text, created_at timestamptz NOT NULL)`;
const insert = {
  name: 'bench_insert',
  text: `INSERT INTO ${TABLE} (id, merchant_id, amount, currency, status, order_id, created_at)
         VALUES ($1, 'mer_bench', $2, 'AZN', 'pending', $3, now())`,
};

let phase: 'warmup' | 'measure' | 'stop' = 'warmup';
let rows = 0;
let failures = 0;
const latenciesMs: number[] = [];
const prefix = randomBytes(4).toString('hex');
let seq = 0;

async function loop(client: pg.PoolClient): Promise<void> {
  while (phase !== 'stop') {
    const n = seq++;
    const t0 = process.hrtime.bigint();
    try {
      await client.query({ ...insert, values: [`pay_${prefix}_${n}`, 4900, `order-${n}`] });
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
  if (tableKind === 'durable') await pool.query(`DROP TABLE IF EXISTS ${TABLE}; CREATE TABLE ${TABLE} ${columns}`);
  const clients: pg.PoolClient[] = [];
  for (let i = 0; i < connections; i++) {
    const c = await pool.connect();
    if (tableKind === 'temp') await c.query(`CREATE TEMP TABLE ${TABLE} ${columns}`);
    clients.push(c);
  }
  const loops = clients.map(loop);
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

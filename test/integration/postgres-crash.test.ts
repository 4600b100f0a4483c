// Postgres itself crashes (an immediate shutdown: what its WAL buffers held and nobody flushed is
// gone, as after a power cut) on the money path, on a private embedded Postgres of this test's own
// (the machine's is never touched). The sandbox bank's ledger commits without waiting for its WAL
// flush (actors/shard.ts); every engine commit that records a bank answer flushes that WAL too. So:
//   - a payment answered 2xx keeps its row, its settled attempt and its charge at the bank;
//   - a server killed between the bank's answer and the settlement, then Postgres crashed: whatever
//     survived agrees. Either the charge survived and recovery settles the payment on it, or the
//     charge is gone with everything built on it and recovery releases the attempt, as for a bank that
//     never got the call. Never a settled payment without its charge, nor a charge left unsettled.
import t from 'tap';
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbedded, type Embedded } from '../../src/store/embedded.js';
import { createLogger } from '../../src/log.js';
import { seedEmbeddedCluster } from '../helpers/embedded-cluster.js';
import { callChild as call, sendUntilDead, startChild, type Child } from '../helpers/child.js';
import { CARDS, card } from '../helpers/checkout.js';
import { suffix } from '../helpers/env.js';
import { until } from '../helpers/wait.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-pgcrash-'));
await seedEmbeddedCluster(dataDir);
const quiet = createLogger('silent');
let postgres: Embedded = await startEmbedded(dataDir, quiet);
const children: Child[] = [];
let db = new pg.Pool({ connectionString: postgres.url, max: 2 });
db.on('error', () => {}); // its connections die with each crash; the next query opens another
t.teardown(async () => {
  for (const c of children) c.proc.kill('SIGKILL');
  await Promise.all(children.map((c) => c.exited));
  await db.end().catch(() => {});
  await postgres.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

// Nothing flushes the WAL on a timer meanwhile: an async commit stays in the buffers until a later
// synchronous commit (or the crash) decides its fate.
await db.query("ALTER SYSTEM SET wal_writer_delay = '10s'");
await db.query('SELECT pg_reload_conf()');

const env = (extra: Record<string, string> = {}) => ({
  ADMIN_TOKEN: 'adm', DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pe-pgcrash-srv-')), DEMO_MERCHANT: '0', WORKERS: '1',
  KV_PREFIX: `pgc${suffix()}:`, DATABASE_URL: postgres.url, ATTEMPT_RECOVERY_AFTER_MS: '1000', ATTEMPT_RECOVERY_POLL_MS: '100', ...extra,
});
async function server(extra: Record<string, string> = {}): Promise<Child> {
  const c = await startChild(env(extra));
  children.push(c);
  return c;
}

/** An immediate shutdown (SIGQUIT to the postmaster), then a start on the same files: crash recovery. */
async function crashPostgres(): Promise<void> {
  await db.end().catch(() => {});
  const gone = new Promise<void>((resolve) => {
    const check = () => { try { process.kill(postgres.pid, 0); setTimeout(check, 20); } catch { resolve(); } };
    check();
  });
  process.kill(postgres.pid, 'SIGQUIT');
  await gone;
  postgres = await startEmbedded(dataDir, quiet);
  db = new pg.Pool({ connectionString: postgres.url, max: 2 });
  db.on('error', () => {});
}

let a = await server();
const m = await call(a, 'POST', '/internal/merchants', 'adm', { name: 'pg-crash', rate_limit_per_minute: 1000000, currencies: ['RUB'], default_currency: 'RUB' });
await call(a, 'PATCH', `/internal/merchants/${m.body.id}`, 'adm', { card_data_allowed: true });
const key = (await call(a, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'secret', mode: 'test' })).body.key as string;
const body = (order: string) => ({ amount: 4200, currency: 'RUB', order_id: order, card: card(CARDS.success) });

async function stateOf(idem: string) {
  const p = (await db.query('SELECT id, status FROM payments WHERE idempotency_key = $1', [idem])).rows[0] as { id: string; status: string } | undefined;
  if (!p) return null;
  const attempts = (await db.query('SELECT id, status FROM connector_attempts WHERE aggregate_id = $1 ORDER BY created_at', [p.id])).rows as { id: string; status: string }[];
  const charges = (await db.query(`SELECT count(*)::int AS n FROM sandbox_ledger WHERE idempotency_key = ANY($1) AND moved`, [attempts.map((x) => x.id)])).rows[0].n as number;
  return { ...p, attempts: attempts.map((x) => x.status), charges };
}

t.test('a payment answered 200 keeps its settlement and its charge through a Postgres crash', async (t) => {
  const r = await call(a, 'POST', '/v2/payments', key, body('pgc-1'), { 'Idempotency-Key': 'pgc-answered' });
  t.equal(r.status, 200);
  t.equal(r.body.status, 'succeeded');
  a.proc.kill('SIGKILL');
  await a.exited;
  await crashPostgres();
  t.match(await stateOf('pgc-answered'), { id: r.body.id, status: 'succeeded', attempts: ['succeeded'], charges: 1 }, 'all of it survived');
});

t.test('killed after the bank\'s answer, then Postgres crashed: what survived agrees, and recovery finishes it', async (t) => {
  const doomed = await server({ FAILPOINTS: 'after-connector-call:kill' });
  await sendUntilDead(t, doomed, () => call(doomed, 'POST', '/v2/payments', key, body('pgc-2'), { 'Idempotency-Key': 'pgc-unsettled' }), 'the server died after the bank answered');
  const before = await stateOf('pgc-unsettled');
  t.match(before, { status: 'pending', attempts: ['started'] }, 'the payment and its attempt were committed before the bank call');
  await crashPostgres();
  const after = await stateOf('pgc-unsettled');
  t.match(after, { status: 'pending', attempts: ['started'] }, 'they survive the crash (committed with a flush)');
  t.comment(`the bank's charge ${after!.charges ? 'survived' : 'was lost with the WAL buffers'}`);
  a = await server();
  await until('recovery decided the attempt', async () => (await stateOf('pgc-unsettled'))!.attempts.every((s) => s !== 'started'), 120_000);
  const end = (await stateOf('pgc-unsettled'))!;
  if (after!.charges === 1) t.match(end, { status: 'succeeded', attempts: ['succeeded'], charges: 1 }, 'the surviving charge is settled, once');
  else t.match(end, { status: 'pending', attempts: ['abandoned'], charges: 0 }, 'no charge: the attempt is released and nothing was charged');
  const retry = await call(a, 'POST', '/v2/payments', key, body('pgc-2'), { 'Idempotency-Key': 'pgc-unsettled' });
  t.equal(retry.status, 200);
  t.match(retry.body, { id: end.id, status: 'succeeded' }, 'the key\'s retry shows the payment paid');
  t.equal((await stateOf('pgc-unsettled'))!.charges, 1, 'charged exactly once in all');
});

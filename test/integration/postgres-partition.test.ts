// A silent partition between the server and Postgres (our own TCP proxy stops forwarding, sockets
// stay open): answers are 503 with Retry-After within the deadlines, never a hang; after the
// partition heals the same process serves again and every acknowledged create is in Postgres;
// SIGTERM during a partition exits within its bound.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startChild, type Child } from '../helpers/child.js';
import { PG_URL, REDIS_URL, freshDatabase, suffix } from '../helpers/env.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

// A hang is a failure: every call has a client-side time-out far above the server's deadlines.
const CLIENT_TIMEOUT_MS = 20_000;

if (!PG_URL) {
  t.plan(0, 'skipped: needs DATABASE_URL (the TCP proxy sits in front of the machine\'s Postgres; CI sets it)');
  process.exit(0);
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-partition-'));
const db = await freshDatabase('partition');
const target = new URL(PG_URL!);
const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
const direct = new pg.Pool({ connectionString: db.url, max: 2 });
direct.on('error', () => {});
t.teardown(async () => { await direct.end(); await proxy.close(); await db.drop(); rmSync(dataDir, { recursive: true, force: true }); });

const env: Record<string, string> = {
  ADMIN_TOKEN: 'adm', DATA_DIR: dataDir, DEMO_MERCHANT: '0', WORKERS: '2', KV_PREFIX: `pp${suffix()}:`,
  DATABASE_URL: proxy.url(db.url), ...(REDIS_URL ? { REDIS_URL } : {}),
  ACTOR_DEADLINE_MS: '1500', PG_QUERY_TIMEOUT_MS: '2000', PG_STATEMENT_TIMEOUT_MS: '1500', PG_CONNECT_TIMEOUT_MS: '1500',
  SHUTDOWN_TIMEOUT_MS: '5000', AUTH_CACHE_MS: '600000', EXPIRY_POLL_MS: '200',
};

interface Answer { status: number; headers: Headers; body: any }
async function call(url: string, method: string, p: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const r = await fetch(url + p, {
    method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
  });
  const text = await r.text();
  let parsed: unknown = null;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, headers: r.headers, body: parsed };
}

async function setup(child: Child): Promise<string> {
  const m = await call(child.url, 'POST', '/internal/merchants', 'adm', { name: 'partition', rate_limit_per_minute: 1000000 });
  const k = await call(child.url, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'merchant', mode: 'test' });
  return k.body.key as string;
}

/**
 * The first create of a fresh server, before any partition. Its 1.5 s deadlines are this file's
 * subject, and a cold server on a busy machine (test files run side by side) can pass them while
 * its workers warm up: a 503 (or 409 while the same key still runs) means "retry", so retry with
 * the same key until the answer is 201, for at most 30 s.
 */
async function firstCreate(child: Child, key: string): Promise<Answer> {
  const idem = `first-${suffix()}`;
  const end = Date.now() + 30_000;
  for (;;) {
    const r = await call(child.url, 'POST', '/api/v2/payments', key, { amount: 100 }, { 'idempotency-key': idem });
    if ((r.status !== 503 && r.status !== 409) || Date.now() > end) return r;
    await new Promise((res) => setTimeout(res, 100));
  }
}

t.test('503 within the deadline during a partition, recovery without restart, no acknowledged create lost', async (t) => {
  const child = await startChild(env);
  t.teardown(() => { child.proc.kill('SIGKILL'); });
  const key = await setup(child);
  const first = await firstCreate(child, key);
  t.equal(first.status, 201, 'healthy before the partition (and the key is in the auth cache)');

  // Load through the whole test: every answer counts, a hang (client time-out) fails the test.
  const acknowledged: string[] = [];
  const statuses = new Map<number, number>();
  const hangs: string[] = [];
  let stop = false;
  const loop = async (n: number) => {
    for (let i = 0; !stop; i++) {
      try {
        const r = await call(child.url, 'POST', '/api/v2/payments', key, { amount: 100 + n }, { 'idempotency-key': `load-${n}-${i}` });
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status === 201) acknowledged.push(r.body.id);
      } catch (err) { hangs.push((err as Error).message); return; }
    }
  };
  const loops = [0, 1, 2, 3].map(loop);
  while (acknowledged.length < 20 && hangs.length === 0) await new Promise((r) => setTimeout(r, 20));

  proxy.stall();
  t.teardown(() => proxy.resume());
  const create = await call(child.url, 'POST', '/api/v2/payments', key, { amount: 4242 }, { 'idempotency-key': `stalled-${suffix()}` });
  t.equal(create.status, 503, 'a create during the partition is 503');
  t.ok(['deadline_exceeded', 'service_unavailable'].includes(create.body?.error?.code), `in the envelope (${create.body?.error?.code})`);
  t.ok(Number(create.headers.get('retry-after')) >= 1, 'with Retry-After');
  const unknown = await call(child.url, 'GET', '/api/v2/payments/pay_doesnotexist00000000000000', key);
  t.equal(unknown.status, 503, 'a read that needs Postgres is 503, not a 404 or a hang');
  t.ok(Number(unknown.headers.get('retry-after')) >= 1, 'with Retry-After');
  const known = await call(child.url, 'GET', `/api/v2/payments/${first.body.id}`, key);
  // Served from memory only while the process can prove it current; otherwise Postgres, hence 503.
  t.ok(known.status === 503 || (known.status === 200 && known.body.id === first.body.id), `a read of a known payment: ${known.status}`);
  const health = await call(child.url, 'GET', '/v2/health', key);
  t.equal(health.status, 503, 'health reports the database down');

  proxy.resume();
  let recovered: Answer | null = null;
  for (let i = 0; i < 100 && !recovered; i++) {
    const r = await call(child.url, 'POST', '/api/v2/payments', key, { amount: 7 });
    if (r.status === 201) recovered = r; else await new Promise((res) => setTimeout(res, 100));
  }
  t.ok(recovered, 'creates succeed again without a restart');
  const read = await call(child.url, 'GET', `/api/v2/payments/${recovered!.body.id}`, key);
  t.equal(read.status, 200, 'and reads');
  const before = acknowledged.length;
  while (acknowledged.length < before + 10 && hangs.length === 0) await new Promise((r) => setTimeout(r, 20));
  stop = true;
  await Promise.all(loops);

  t.same(hangs, [], 'no request hung');
  t.ok((statuses.get(503) ?? 0) > 0, `the load saw 503s during the partition (${JSON.stringify([...statuses])})`);
  t.same([...statuses.keys()].filter((s) => s !== 201 && s !== 503), [], 'every answer was 201 or 503');
  const ids = [...acknowledged, first.body.id, recovered!.body.id];
  const found = new Set((await direct.query('SELECT id FROM payments WHERE id = ANY($1)', [ids])).rows.map((r) => r.id));
  t.same(ids.filter((id) => !found.has(id)), [], `all ${ids.length} acknowledged creates are in Postgres`);

  child.proc.kill('SIGTERM');
  t.equal(await child.exited, 0);
});

t.test('SIGTERM during a partition exits within its bound', async (t) => {
  const child = await startChild(env);
  t.teardown(() => { child.proc.kill('SIGKILL'); });
  const key = await setup(child);
  t.equal((await firstCreate(child, key)).status, 201);
  proxy.stall();
  t.teardown(() => proxy.resume());
  // Work stuck on the partition: creates in the workers, reads in the main thread.
  const stuck = [
    ...Array.from({ length: 4 }, () => call(child.url, 'POST', '/api/v2/payments', key, { amount: 5 }).catch((e: Error) => e)),
    call(child.url, 'GET', '/api/v2/payments/pay_doesnotexist00000000000000', key).catch((e: Error) => e),
  ];
  child.proc.kill('SIGTERM');
  // SHUTDOWN_TIMEOUT_MS is 5 s; give it generous room, but never wait forever.
  const bound = new Promise<'hung'>((r) => setTimeout(() => r('hung'), 30_000).unref());
  const code = await Promise.race([child.exited, bound]);
  t.not(code, 'hung', `exited (code ${code}) while Postgres was unreachable`);
  await Promise.all(stuck);
  t.match(child.output(), /shutting down/);
});

// The SBP bank lists fail open: with Redis cut the list comes from Postgres; with Postgres cut a
// warm cache still answers; with both cut (or Postgres cut and the cache cold) every public list
// answers 200 with an empty list within its deadline (never a 5xx, never a hang), logs the cause,
// and is not kept by shared caches; once the cut heals the full list is back (the empty answer was
// not cached). Cuts are silent partitions made by our own TCP proxies (test/helpers/tcp-proxy.ts)
// in front of the machine's Postgres and Redis; without REDIS_URL the server uses the in-process
// store and only Postgres is cut.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild } from '../helpers/child.js';
import { PG_URL, REDIS_URL, freshDatabase, suffix } from '../helpers/env.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { until } from '../helpers/wait.js';

// A hang is a failure: every call has a client-side time-out far above the server's deadlines.
const CLIENT_TIMEOUT_MS = 15_000;

if (!PG_URL) {
  t.plan(0, 'skipped: needs DATABASE_URL (the TCP proxy sits in front of the machine\'s Postgres; CI sets it)');
  process.exit(0);
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-sbp-open-'));
const db = await freshDatabase('sbpopen');
const pgTarget = new URL(PG_URL);
const pgProxy = await startTcpProxy(pgTarget.hostname, Number(pgTarget.port || 5432));
let redisProxy: TcpProxy | null = null;
if (REDIS_URL) {
  const r = new URL(REDIS_URL);
  redisProxy = await startTcpProxy(r.hostname, Number(r.port || 6379));
}
t.teardown(async () => {
  pgProxy.resume(); redisProxy?.resume();
  await pgProxy.close(); await redisProxy?.close(); await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const child = await startChild({
  ADMIN_TOKEN: 'adm', DATA_DIR: dataDir, DEMO_MERCHANT: '0', WORKERS: '2', KV_PREFIX: `so${suffix()}:`,
  DATABASE_URL: pgProxy.url(db.url), REDIS_URL: redisProxy ? redisProxy.url(REDIS_URL!) : '',
  SBP_LOOKUP_DEADLINE_MS: '1500', PG_QUERY_TIMEOUT_MS: '2000', PG_STATEMENT_TIMEOUT_MS: '1500', PG_CONNECT_TIMEOUT_MS: '1500',
  AUTH_CACHE_MS: '600000', ACTOR_DEADLINE_MS: '8000', REQUEST_DEADLINE_MS: '10000', // the defaults, below CLIENT_TIMEOUT_MS
});
t.teardown(() => { child.proc.kill('SIGKILL'); });

interface Answer { status: number; headers: Headers; body: any }
async function call(method: string, p: string, body?: unknown): Promise<Answer> {
  const r = await fetch(child.url + p, {
    method, headers: { authorization: 'Bearer adm', 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
  });
  const text = await r.text();
  let parsed: unknown = null;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, headers: r.headers, body: parsed };
}

const m = await call('POST', '/internal/merchants', { name: 'sbp fail open', currencies: ['RUB'], rate_limit_per_minute: 1000000 });
const k = await call('POST', `/internal/merchants/${m.body.id}/api-keys`, { kind: 'merchant', mode: 'test' });
// The server's Postgres deadlines are short (the test is about them), so on a busy machine the
// create may answer 503: retried with its Idempotency-Key, as a merchant would, until it is 201.
let rub = '';
await until('the RUB payment created', async () => {
  const pay = await fetch(`${child.url}/api/v2/payments`, {
    method: 'POST', body: JSON.stringify({ amount: 4900, currency: 'RUB' }),
    headers: { authorization: `Bearer ${k.body.key}`, 'content-type': 'application/json', 'idempotency-key': 'sbp-fail-open-rub' },
  });
  if (pay.status >= 500) return false;
  if (pay.status !== 201) throw new Error(`create answered ${pay.status}: ${await pay.text()}`);
  rub = ((await pay.json()) as { id: string }).id;
  return true;
}, 120_000, 200);
const LISTS = ['/sbp/members', '/sbp/members/popular?limit=3', `/checkout/${rub}/sbp-members?limit=50`];

t.test('healthy: every list is full', async (t) => {
  for (const p of LISTS) {
    const r = await call('GET', p);
    t.equal(r.status, 200, p);
    t.ok(r.body.count > 0 && r.body.count === r.body.data.length, p);
  }
});

t.test('Redis cut: the lists come from Postgres', { skip: redisProxy ? false : 'no REDIS_URL: the in-process store cannot be cut' }, async (t) => {
  redisProxy!.stall();
  t.teardown(() => redisProxy!.resume());
  for (const p of LISTS) {
    const r = await call('GET', p);
    t.equal(r.status, 200, p);
    t.ok(r.body.count > 0, `${p}: full list`);
  }
});

t.test('Postgres cut, cache warm: the cached list still answers', async (t) => {
  // After the Redis cut the client's circuit breaker stays open until a probe succeeds; until then
  // the list would not be cached. Health reports kv up once the breaker has closed.
  await until('Redis usable again (breaker closed)', async () => (await call('GET', '/v2/health')).body?.kv?.status === 'up', 20_000, 200);
  const warm = await call('GET', '/sbp/members');
  t.ok(warm.body.count > 0);
  pgProxy.stall();
  t.teardown(() => pgProxy.resume());
  const r = await call('GET', '/sbp/members');
  t.same([r.status, r.body.count], [200, warm.body.count]);
  t.equal(r.headers.get('cache-control'), 'public, max-age=300');
});

t.test('Postgres cut, cache cold (and Redis cut when there is one): 200 with an empty list, never a 5xx or a hang', async (t) => {
  const touch = await call('PATCH', '/internal/sbp/members/100000000111', { display_order: 1 });
  t.same([touch.status, touch.body.cache_invalidated], [200, true], 'an operator change leaves the cache cold');
  pgProxy.stall();
  redisProxy?.stall();
  t.teardown(() => { pgProxy.resume(); redisProxy?.resume(); });
  for (const p of LISTS) {
    const r = await call('GET', p);
    t.equal(r.status, 200, p);
    t.same([r.body.data, r.body.count], [[], 0], `${p}: empty`);
    t.equal(r.headers.get('cache-control'), 'no-store', `${p}: no cache may keep the empty answer`);
    if (p.startsWith('/checkout/')) t.equal(r.body.currency_supported, false);
  }
  await until('the cause in the log', () => /SBP member lookup (passed its deadline|failed)/.test(child.output()));
  await until('the payment lookup failure in the log', () => /payment lookup for the SBP list failed/.test(child.output()));
  const metrics = await fetch(`${child.url}/metrics`, { headers: { authorization: 'Bearer adm' }, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
  const n = Number(/^sbp_list_fail_open_total (\d+)$/m.exec(await metrics.text())?.[1]);
  t.ok(n >= LISTS.length, `counted in sbp_list_fail_open_total (${n})`);
});

t.test('after the cut heals the full list is back: the empty answer was never cached', async (t) => {
  pgProxy.resume();
  redisProxy?.resume();
  let last: Answer | null = null;
  await until('the full list again', async () => { last = await call('GET', '/sbp/members'); return last.status === 200 && last.body.count > 0; });
  t.equal(last!.headers.get('cache-control'), 'public, max-age=300');
  const r = await call('GET', `/checkout/${rub}/sbp-members`);
  t.same([r.status, r.body.currency_supported], [200, true]);
  t.ok(r.body.count > 0);
});

// Rate limits over two server processes on one Redis: each process leases blocks of the window's
// allowance and spends them locally, and together they never admit more than the limit.
import t from 'tap';
import { callChild, type Child } from '../helpers/child.js';
import { startCluster } from '../helpers/cluster.js';
import { PG_URL, REDIS_URL } from '../helpers/env.js';

if (!PG_URL || !REDIS_URL) {
  t.plan(0, 'skipped: needs DATABASE_URL and REDIS_URL (two server processes share one Postgres and one Redis; CI sets both)');
  process.exit(0);
}

const call = callChild;

const cluster = await startCluster(t, 'rlc');
const a = await cluster.start();
const b = await cluster.start();

async function keyWithLimit(limit: number): Promise<string> {
  const m = await call(a, 'POST', '/internal/merchants', 'adm', { name: `rl ${limit}`, rate_limit_per_minute: limit });
  return (await call(a, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'merchant', mode: 'test' })).body.key as string;
}

/** n requests at once, alternating between the two processes. */
const burst = (key: string, n: number) => Promise.all(Array.from({ length: n }, (_, i) => call(i % 2 ? b : a, 'GET', '/api/v2/ping', key)));

t.test('a small limit (50) over two processes: 150 parallel requests admit exactly 50', async (t) => {
  const key = await keyWithLimit(50);
  const replies = await burst(key, 150);
  const ok = replies.filter((r) => r.status === 200);
  t.equal(ok.length, 50, 'small limits lease only what waiting requests need: exact');
  t.equal(replies.filter((r) => r.status === 429).length, 100);
  const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y);
  t.same(remaining, Array.from({ length: 50 }, (_, i) => i), 'each admitted request holds its own unit of the window, whichever process served it');
  const later = await Promise.all([call(a, 'GET', '/api/v2/ping', key), call(b, 'GET', '/api/v2/ping', key)]);
  t.same(later.map((r) => r.status), [429, 429], 'both processes know the window is spent');
});

t.test('a large limit (1000, leased in blocks of 10) over two processes: never more than the limit', async (t) => {
  const key = await keyWithLimit(1000);
  const admitted: number[] = [];
  for (let round = 0; round < 4; round++) {
    const replies = await burst(key, 300);
    for (const r of replies) if (r.status === 200) admitted.push(Number(r.headers.get('x-ratelimit-remaining')));
  }
  t.ok(admitted.length <= 1000, `admitted ${admitted.length} of 1200 against a limit of 1000`);
  t.ok(admitted.length >= 1000 - 2 * 10, `at most one block per process left unspent (admitted ${admitted.length})`);
  t.equal(new Set(admitted).size, admitted.length, 'no unit of the window was spent twice');
  t.ok(admitted.every((n) => n >= 0 && n < 1000));
});

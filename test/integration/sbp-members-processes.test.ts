// The cached SBP list under several processes on one Postgres and one Redis: once an operator change
// made through one process is acknowledged, every process lists the change, even while readers on
// both keep loading and re-caching the list around the change (a reader that loaded the old rows
// must not put them back into the cache after the invalidation).
import t from 'tap';
import { PG_URL, REDIS_URL } from '../helpers/env.js';
import { startCluster } from '../helpers/cluster.js';

if (!PG_URL || !REDIS_URL) {
  t.plan(0, 'skipped: needs DATABASE_URL and REDIS_URL (several processes share the cache only through Redis; CI sets both)');
  process.exit(0);
}

const cluster = await startCluster(t, 'sbpproc', { PUBLIC_RATE_LIMIT_PER_MINUTE: '10000000' });
const [a, b] = [await cluster.start(), await cluster.start()];

async function call(url: string, method: string, p: string, body?: unknown) {
  const r = await fetch(url + p, {
    method, headers: { authorization: 'Bearer adm', 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(15_000),
  });
  return { status: r.status, body: await r.json() as any };
}
const popular = async (url: string) => (await call(url, 'GET', '/sbp/members/popular?limit=100')).body.data.map((m: { member_id: string }) => m.member_id) as string[];

t.test('an acknowledged change is listed by every process at once, under concurrent re-caching', async (t) => {
  const id = '100000000990';
  let stop = false;
  // Readers on both processes keep the cache busy: misses, loads from Postgres and re-caching.
  const readers = [a.url, b.url, a.url, b.url].map(async (url) => {
    while (!stop) await call(url, 'GET', '/sbp/members/popular?limit=100');
  });
  t.teardown(() => { stop = true; });
  for (let i = 0; i < 25; i++) {
    const popularNow = i % 2 === 0;
    const via = i % 3 === 0 ? b.url : a.url;
    const r = await call(via, 'POST', '/internal/sbp/members', {
      member_id: id, name: { en: `Bank ${i}`, ru: `Банк ${i}`, az: `Bank ${i}` }, is_popular: popularNow, display_order: 0,
    });
    t.equal(r.body.cache_invalidated, true);
    for (const url of [a.url, b.url]) {
      const listed = (await popular(url)).includes(id);
      if (listed !== popularNow) t.fail(`round ${i}: ${url === a.url ? 'a' : 'b'} lists the member ${listed ? 'after it stopped being popular' : 'before it became popular'}`);
    }
  }
  const del = await call(b.url, 'DELETE', `/internal/sbp/members/${id}`);
  t.equal(del.status, 200);
  t.notOk((await popular(a.url)).includes(id), 'deleted through b, gone from a');
  stop = true;
  await Promise.all(readers);
  t.pass('25 rounds without a stale list');
});

// setMany (the replay cache's grouped write): every key gets its value and the time to live, on one
// Redis (one script call) and in the in-process store; an empty list is a no-op.
import t from 'tap';
import { MemoryKeyValue } from '../../src/store/kv-memory.js';
import { RedisKeyValue } from '../../src/store/kv-redis.js';
import type { KeyValue } from '../../src/store/kv.js';
import { REDIS_URL, needRedis, suffix } from '../helpers/env.js';

const entries: [string, string][] = Array.from({ length: 40 }, (_, i) => [`k${i}`, JSON.stringify({ i, body: '"quoted" \u00e9' })]);

async function roundTrip(kv: KeyValue): Promise<{ got: (string | null)[]; again: string | null }> {
  await kv.setMany([], 60_000);
  await kv.setMany(entries, 60_000);
  const got: (string | null)[] = [];
  for (const [k] of entries) got.push(await kv.get(k));
  await kv.setMany([['k0', 'again']], 60_000);
  return { got, again: await kv.get('k0') };
}

t.test('in-process store', async (t) => {
  const r = await roundTrip(new MemoryKeyValue());
  t.same(r.got, entries.map(([, v]) => v), 'every key has its value');
  t.equal(r.again, 'again', 'a single entry overwrites too');
});

t.test('one Redis', { skip: needRedis }, async (t) => {
  const kv = new RedisKeyValue(REDIS_URL!, `setmany:${suffix()}:`);
  t.teardown(async () => { for (let i = 0; i < 40; i++) await kv.del(`k${i}`); await kv.close(); });
  await kv.ready();
  const r = await roundTrip(kv);
  t.same(r.got, entries.map(([, v]) => v), 'every key has its value');
  t.equal(r.again, 'again', 'a single entry overwrites too');
  t.ok(Number(await (kv as unknown as { client: { pttl(k: string): Promise<number> } }).client.pttl('k5')) > 50_000, 'with its time to live');
});

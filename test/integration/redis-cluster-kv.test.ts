// The key-value store on a real Redis Cluster of three masters (`redis-cluster://`, issue 15):
// every operation works for keys on every master; with one master down only the keys of its
// slots fail, and once its breaker is open they fail at once without asking Redis; health says
// down although the surviving masters answer PING; the restarted master is used again.
import t from 'tap';
import { KvUnavailableError } from '../../src/store/kv-breaker.js';
import { RedisKeyValue, clusterNodes } from '../../src/store/kv-redis.js';
import { suffix } from '../helpers/env.js';
import { until } from '../helpers/wait.js';
import { redisClusterMissing, startRedisCluster } from '../rig/redis-cluster.js';

t.test('redis-cluster:// URLs name the seed nodes', async (t) => {
  t.same(clusterNodes('redis-cluster://h1:7000,h2,10.0.0.3:7002'), [{ host: 'h1', port: 7000 }, { host: 'h2', port: 6379 }, { host: '10.0.0.3', port: 7002 }]);
  t.equal(clusterNodes('redis://h1:6379'), null);
});

t.test('a three-master Redis Cluster', { skip: redisClusterMissing() }, async (t) => {
  const cluster = await startRedisCluster();
  t.teardown(() => cluster.close());
  const kv = new RedisKeyValue(cluster.url, `kvc${suffix()}:`);
  t.teardown(() => kv.close());
  t.ok(await kv.ready(5000), 'connected');
  await until('slots known', () => kv.ping(), 10_000);
  const ports = cluster.nodes.map((n) => `127.0.0.1:${n.port}`);
  const nodeOf = (k: string) => (kv as unknown as { nodeOf(k: string): string }).nodeOf(k);
  // Keys spread over the slots; group them by the master that serves them.
  const keys = Array.from({ length: 60 }, (_, i) => `k:${i}`);
  const byNode = new Map<string, string[]>(ports.map((p) => [p, []]));
  for (const k of keys) byNode.get(nodeOf(k))!.push(k);
  for (const p of ports) t.ok(byNode.get(p)!.length > 0, `some keys live on ${p}`);

  await t.test('every operation of the port works on every master', async (t) => {
    for (const k of keys) {
      t.equal(await kv.setIfAbsent(k, 'first', 10_000), null, `${k} stored`);
      t.equal(await kv.setIfAbsent(k, 'second', 10_000), 'first', `${k} kept`);
      await kv.set(`${k}:v`, 'v', 10_000);
      t.equal(await kv.get(`${k}:v`), 'v');
      const a = await kv.rateLease(`rl:${k}`, 60_000, 2, 3);
      const b = await kv.rateLease(`rl:${k}`, 60_000, 2, 3);
      t.same([a.before, a.granted, b.before, b.granted], [0, 2, 2, 1], `rate lease of ${k} never past the limit`);
      t.ok(b.ttlMs > 0 && b.ttlMs <= 60_000);
      await kv.del(k);
      t.equal(await kv.get(k), null);
    }
    t.same(kv.openNodes(), []);
  });

  await t.test('one master down: its keys fail fast behind an open breaker, the others work, health is down', async (t) => {
    const down = ports[1];
    await cluster.stop(1);
    const dead = byNode.get(down)!;
    const alive = keys.filter((k) => nodeOf(k) !== down);
    // The first failures trip the breaker (each bounded by the operation's timeout).
    await until('breaker of the stopped master open', async () => {
      await kv.get(dead[0]).catch(() => {});
      return kv.openNodes().includes(down);
    }, 20_000, 10);
    const outcomes = await Promise.allSettled(dead.map((k) => kv.get(k)));
    t.ok(outcomes.every((o) => o.status === 'rejected' && o.reason instanceof KvUnavailableError),
      'every key of the stopped master is refused by the breaker, without asking Redis');
    t.equal(await kv.ping(), false, 'health: down, although two masters answer PING');
    for (const k of alive) t.equal(await kv.setIfAbsent(k, 'again', 10_000), null, `${k} on a live master still works`);
  });

  await t.test('the master comes back: a probe closes the breaker and its keys work again', async (t) => {
    await cluster.start(1);
    const k = byNode.get(ports[1])![0];
    await until('a key of the restarted master works', () => kv.set(k, 'back', 10_000).then(() => true, () => false), 30_000, 50);
    t.equal(await kv.get(k), 'back');
    t.same(kv.openNodes(), [], 'breaker closed');
    await until('health up', () => kv.ping(), 10_000);
    t.pass('health up again');
  });
});

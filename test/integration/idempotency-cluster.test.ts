// Idempotency with Postgres as the arbiter, over two server processes: one key sent at once through
// both makes one payment and every answer names it; many shared keys at once neither duplicate nor
// deadlock; with Redis unreachable nothing changes.
import t from 'tap';
import { callChild, type Child } from '../helpers/child.js';
import { startCluster } from '../helpers/cluster.js';
import { Redis } from 'ioredis';
import { PG_URL, REDIS_URL, suffix } from '../helpers/env.js';
import { until } from '../helpers/wait.js';

if (!PG_URL) {
  t.plan(0, 'skipped: needs DATABASE_URL (two server processes share one Postgres; CI sets it)');
  process.exit(0);
}

const call = (c: Child, method: string, p: string, key: string, body?: unknown, idem?: string) =>
  callChild(c, method, p, key, body, idem ? { 'idempotency-key': idem } : {});

for (const [name, env] of [['Redis as configured', {}], ['Redis unreachable', { REDIS_URL: 'redis://127.0.0.1:1' }]] as const) {
  t.test(name, async (t) => {
    const cluster = await startCluster(t, 'idm', env);
    const [a, b] = [await cluster.start(), await cluster.start()];
    const m = await call(a, 'POST', '/internal/merchants', 'adm', { name: 'idem cluster', rate_limit_per_minute: 1000000 });
    const key = (await call(a, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'merchant', mode: 'test' })).body.key as string;
    const rows = async (idem: string) => (await cluster.db.query('SELECT id FROM payments WHERE idempotency_key = $1', [idem])).rows.map((r) => r.id as string);

    await t.test('one key, 40 requests at once through both processes: one payment, every answer names it', async (t) => {
      const idem = `one-${suffix()}`;
      const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => call(i % 2 ? b : a, 'POST', '/api/v2/payments', key, { amount: 1234 }, idem)));
      t.ok(replies.every((r) => r.status === 201), replies.map((r) => `${r.status}:${r.body?.error?.code ?? ''}`).join(' '));
      const committed = await rows(idem);
      t.equal(committed.length, 1);
      t.ok(replies.every((r) => r.body.id === committed[0]));
      t.equal(replies.filter((r) => r.headers.get('idempotent-replayed') === null).length, 1, 'one answer created it, the others are replays');
    });

    await t.test('30 keys, each sent twice through each process at once: 30 payments, no failure', async (t) => {
      const keys = Array.from({ length: 30 }, (_, i) => `many-${i}-${suffix()}`);
      const sends = keys.flatMap((k, i) => [a, b, a, b].map((c) => call(c, 'POST', '/api/v2/payments', key, { amount: 100 + i }, k)));
      const replies = await Promise.all(sends);
      t.ok(replies.every((r) => r.status === 201), [...new Set(replies.map((r) => `${r.status}:${r.body?.error?.code ?? ''}`))].join(' '));
      for (const k of keys) t.equal((await rows(k)).length, 1, k);
    });

    await t.test('the replay is the first answer byte for byte, from the cache the worker wrote after the commit', { skip: 'REDIS_URL' in env ? 'Redis is unreachable in this round' : !REDIS_URL ? 'needs REDIS_URL' : false }, async (t) => {
      const idem = `bytes-${suffix()}`;
      const first = await call(a, 'POST', '/api/v2/payments', key, { amount: 321, description: 'as first given' }, idem);
      t.equal(first.status, 201);
      const redis = new Redis(REDIS_URL!);
      t.teardown(() => redis.disconnect());
      const cacheKey = `${cluster.env.KV_PREFIX}idem:${m.body.id}:test:payment:${idem}`;
      await until('the replay cache holds the answer', async () => (await redis.get(cacheKey)) !== null);
      // A later change of the row: a replay rendered from the row would show it; the cached one does not.
      await cluster.db.query("UPDATE payments SET description = 'changed later' WHERE id = $1", [first.body.id]);
      const again = await call(b, 'POST', '/api/v2/payments', key, { amount: 321, description: 'as first given' }, idem);
      t.equal(again.headers.get('idempotent-replayed'), 'true');
      t.equal(again.text, first.text, 'byte for byte');
      await redis.del(cacheKey);
      const rendered = await call(b, 'POST', '/api/v2/payments', key, { amount: 321, description: 'as first given' }, idem);
      t.equal(rendered.body.id, first.body.id, 'without the cache: rendered from the committed row');
      t.equal(rendered.body.description, 'changed later');
    });

    await t.test('another body under a used key is a conflict on either process', async (t) => {
      const idem = `conflict-${suffix()}`;
      t.equal((await call(a, 'POST', '/api/v2/payments', key, { amount: 10 }, idem)).status, 201);
      for (const c of [a, b]) {
        const r = await call(c, 'POST', '/api/v2/payments', key, { amount: 11 }, idem);
        t.equal(r.status, 409);
        t.equal(r.body.error.code, 'idempotency_conflict');
      }
    });
  });
}

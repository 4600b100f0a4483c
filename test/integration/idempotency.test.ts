// Idempotency-Key: replay, conflict, in-flight, scoping, and Postgres as the backstop when Redis
// forgets.
import t from 'tap';
import { Redis } from 'ioredis';
import { startTestServer } from '../helpers/server.js';
import { REDIS_URL, needRedis } from '../helpers/env.js';

const s = await startTestServer(t);
const m = await s.merchant();
const post = (key: string, idem: string, body: unknown, lang?: string) => s.request('POST', '/api/v2/payments', {
  key, body, headers: { 'idempotency-key': idem, ...(lang ? { 'accept-language': lang } : {}) },
});
const count = async (idem: string) => (await s.db.query('SELECT count(*)::int AS n FROM payments WHERE idempotency_key = $1', [idem])).rows[0].n;

t.test('same key and body replays the first answer', async (t) => {
  const first = await post(m.key, 'k-replay', { amount: 500, order_id: 'r1' });
  t.equal(first.status, 201);
  t.equal(first.headers.get('idempotent-replayed'), null);
  // The same body with keys in another order and other spacing is the same request.
  const again = await s.request('POST', '/api/v2/payments', { key: m.key, raw: '{ "order_id":"r1",  "amount":500 }', headers: { 'idempotency-key': 'k-replay' } });
  t.equal(again.status, 201);
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.equal(again.text, first.text, 'byte for byte');
  t.equal(await count('k-replay'), 1);
});

t.test('same key with a different body is 409 idempotency_conflict', async (t) => {
  await post(m.key, 'k-conflict', { amount: 500 });
  const r = await post(m.key, 'k-conflict', { amount: 501 });
  t.equal(r.status, 409);
  t.equal(r.body.error.code, 'idempotency_conflict');
  t.equal(await count('k-conflict'), 1);
});

t.test('keys are scoped by merchant and by mode', async (t) => {
  const other = await s.merchant();
  const a = await post(m.key, 'k-scope', { amount: 700 });
  const b = await post(other.key, 'k-scope', { amount: 700 });
  const c = await post(m.liveKey, 'k-scope', { amount: 700 });
  t.equal(new Set([a.body.id, b.body.id, c.body.id]).size, 3);
  t.ok([a, b, c].every((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null));
});

t.test('a bad key header is refused', async (t) => {
  const r = await post(m.key, 'x'.repeat(300), { amount: 1 });
  t.equal(r.status, 400);
  t.equal(r.body.error.code, 'idempotency_key_invalid');
});

t.test('validation failures are not remembered under the key', async (t) => {
  const bad = await post(m.key, 'k-validate', { amount: 1.5 });
  t.equal(bad.status, 422);
  const good = await post(m.key, 'k-validate', { amount: 150 });
  t.equal(good.status, 201);
});

t.test('50 parallel creates with one key: one payment, each answer the same 201 or the in-flight 409', async (t) => {
  const body = { amount: 4242, order_id: 'parallel' };
  const replies = await Promise.all(Array.from({ length: 50 }, () => post(m.key, 'k-parallel', body)));
  const created = replies.filter((r) => r.status === 201);
  const inflight = replies.filter((r) => r.status === 409);
  t.equal(created.length + inflight.length, 50, `statuses ${replies.map((r) => r.status).join(',')}`);
  t.ok(created.length >= 1);
  t.equal(new Set(created.map((r) => r.body.id)).size, 1, 'every 201 names the same payment');
  t.ok(inflight.every((r) => r.body.error.code === 'idempotency_key_in_use' && r.headers.get('retry-after') === '1'));
  t.equal(await count('k-parallel'), 1);
  const after = await post(m.key, 'k-parallel', body);
  t.equal(after.status, 201);
  t.equal(after.body.id, created[0].body.id);
});

t.test('Redis flushed between a create and its retry: still one payment', { skip: needRedis }, async (t) => {
  // A server of its own on a Redis database of its own, so the flush touches nothing else.
  const dbIndex = 9;
  const url = `${REDIS_URL!.replace(/\/\d*$/, '')}/${dbIndex}`;
  const s2 = await startTestServer(t, { REDIS_URL: url });
  const m2 = await s2.merchant();
  const redis = new Redis(url);
  t.teardown(() => redis.disconnect());
  const p2 = (idem: string, body: unknown) => s2.request('POST', '/api/v2/payments', { key: m2.key, body, headers: { 'idempotency-key': idem } });
  const first = await p2('k-flush', { amount: 900 });
  await redis.flushdb();
  const retry = await p2('k-flush', { amount: 900 });
  t.equal(retry.status, 201);
  t.equal(retry.body.id, first.body.id);
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  await redis.flushdb();
  const conflict = await p2('k-flush', { amount: 901 });
  t.equal(conflict.status, 409, 'a different body is still a conflict after the flush');
  t.equal(conflict.body.error.code, 'idempotency_conflict');
  // Flushes while 30 parallel requests run.
  const flusher = setInterval(() => { void redis.flushdb(); }, 2);
  const replies = await Promise.all(Array.from({ length: 30 }, () => p2('k-flush-mid', { amount: 901 })));
  clearInterval(flusher);
  const ids = new Set(replies.filter((r) => r.status === 201).map((r) => r.body.id));
  t.equal(ids.size, 1, 'one payment across every answer');
  t.ok(replies.every((r) => r.status === 201 || r.status === 409));
  const { rows } = await s2.db.query("SELECT count(*)::int AS n FROM payments WHERE idempotency_key = 'k-flush-mid'");
  t.equal(rows[0].n, 1);
});

t.test('with Redis down the unique index still yields one payment', async (t) => {
  const s3 = await startTestServer(t, { REDIS_URL: 'redis://127.0.0.1:1' });
  const m3 = await s3.merchant();
  const replies = await Promise.all(Array.from({ length: 20 }, () =>
    s3.request('POST', '/api/v2/payments', { key: m3.key, body: { amount: 77 }, headers: { 'idempotency-key': 'k-down' } })));
  t.ok(replies.every((r) => r.status === 201), replies.map((r) => r.status).join(','));
  t.equal(new Set(replies.map((r) => r.body.id)).size, 1);
  const { rows } = await s3.db.query('SELECT count(*)::int AS n FROM payments');
  t.equal(rows[0].n, 1);
});

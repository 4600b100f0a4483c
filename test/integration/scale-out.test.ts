// Scale-out on real parts (issue 15): three server processes on one Postgres behind nginx
// (rendered from deploy/nginx.conf), on a Redis Cluster of three masters. Through the load
// balancer, under concurrent load, every invariant holds; then the faults: SIGKILL a replica
// mid-load, restart it, stop a Redis master mid-load. One rig for the whole file.
import t, { type Test } from 'tap';
import { signatureValid, startReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';
import { latency, startLoad } from '../rig/load.js';
import { RIG_ADMIN, rigMissing, startRig, type Rig } from '../rig/rig.js';

const WINDOW_S = 8;
// Rig start-up and the fault phases take about a minute here, longer on a busy machine.
t.setTimeout(600_000);

/** Runs `n` jobs, `width` at a time. */
async function parallel(n: number, width: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => { while (next < n) await job(next++); }));
}

/**
 * 40 keys, each sent 6 times at once through nginx (so over the three processes), a 409
 * idempotency_key_in_use retried: every send of a key answers 201 with one payment, and Postgres
 * holds exactly one row per key.
 */
async function sameKeyBurst(t: Test, rig: Rig, tag: string): Promise<void> {
  const m = await rig.merchant();
  const answers = new Map<string, { status: number; id: string | null }[]>();
  await parallel(240, 48, async (i) => {
    const idem = `${tag}-${i % 40}`;
    for (let attempt = 0; attempt < 50; attempt++) {
      const r = await rig.request('POST', '/api/v2/payments', { key: m.key, idem, body: { amount: 700 + (i % 40), currency: 'AZN' } });
      if (r.status === 409 && r.body?.error?.code === 'idempotency_key_in_use') { await new Promise((x) => setTimeout(x, 50)); continue; }
      const list = answers.get(idem) ?? [];
      list.push({ status: r.status, id: r.body?.id ?? null });
      answers.set(idem, list);
      return;
    }
  });
  const bad = [...answers].filter(([, l]) => l.length !== 6 || l.some((a) => a.status !== 201) || new Set(l.map((a) => a.id)).size !== 1);
  t.same(bad, [], `${tag}: every send of a key answered 201 with the same payment`);
  const { rows } = await rig.db.query('SELECT idempotency_key, count(*)::int AS n FROM payments WHERE merchant_id = $1 GROUP BY 1', [m.id]);
  t.equal(rows.length, 40, `${tag}: one row per key`);
  t.ok(rows.every((r: { n: number }) => r.n === 1), `${tag}: never two`);
}

async function metric(rig: Rig, replica: number, name: string): Promise<number> {
  const r = await rig.request('GET', '/metrics', { key: RIG_ADMIN }, rig.replicas[replica].url);
  let sum = 0;
  for (const line of r.text.split('\n')) if (line.startsWith(name)) sum += Number(line.split(' ').pop());
  return sum;
}

t.test('scale-out rig: 3 processes behind nginx on a Redis Cluster', { skip: rigMissing() }, async (t) => {
  const rig = await startRig({
    replicas: 3,
    env: { PAYMENT_WINDOW_SECONDS: String(WINDOW_S), EXPIRY_POLL_MS: '200', WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '500', PG_POOL_MAX: '8' },
  });
  t.teardown(() => rig.close());

  await t.test('health through nginx: database and every Redis slot up', async (t) => {
    const h = await rig.request('GET', '/v2/health');
    t.match(h.body, { status: 'ok', database: { status: 'up' }, kv: { status: 'up', kind: 'redis' } });
  });

  await t.test('one payment per Idempotency-Key, whichever process each retry lands on', async (t) => {
    await sameKeyBurst(t, rig, 'idem');
  });

  await t.test('the per-key rate limit holds across processes', async (t) => {
    const limit = 30;
    const m = await rig.merchant({ rate_limit_per_minute: limit });
    const statuses: number[] = [];
    await parallel(90, 30, async () => { statuses.push((await rig.request('GET', '/api/v2/ping', { key: m.key })).status); });
    const admitted = statuses.filter((s) => s === 200).length;
    t.equal(statuses.filter((s) => s !== 200 && s !== 429).length, 0, 'every answer is 200 or 429');
    t.ok(admitted <= limit, `never more than the limit: ${admitted} admitted of 90 (limit ${limit})`);
    t.ok(admitted > 0, 'the limit admits');
  });

  await t.test('read your writes: written through one process, read through another', async (t) => {
    const m = await rig.merchant();
    const bad: string[] = [];
    await parallel(45, 15, async (i) => {
      const [w, r1, r2] = [i % 3, (i + 1) % 3, (i + 2) % 3].map((k) => rig.replicas[k].url);
      const c = await rig.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 500, currency: 'AZN' } }, w);
      if (c.status !== 201) { bad.push(`create ${c.status}`); return; }
      const g1 = await rig.request('GET', `/api/v2/payments/${c.body.id}`, { key: m.key }, r1);
      if (g1.body?.status !== 'pending') bad.push(`${c.body.id} after create: ${g1.status} ${g1.body?.status}`);
      const d = await rig.request('POST', `/api/v2/test/payments/${c.body.id}/complete`, { key: m.key, body: { outcome: 'succeeded' } }, w);
      if (d.status !== 200) { bad.push(`complete ${d.status} ${d.text}`); return; }
      const g2 = await rig.request('GET', `/api/v2/payments/${c.body.id}`, { key: m.key }, r2);
      if (g2.body?.status !== 'succeeded') bad.push(`${c.body.id} after completion: ${g2.status} ${g2.body?.status}`);
    });
    t.same(bad, [], 'no stale read');
  });

  await t.test('each webhook event delivered once; each expiry applied once', async (t) => {
    const receiver = await startReceiver();
    t.teardown(() => receiver.close());
    const m = await rig.merchant();
    const ws = await rig.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'merchant', url: receiver.url });
    t.equal(ws.status, 201, ws.text);
    const ids: string[] = [];
    await parallel(30, 10, async (i) => {
      const c = await rig.request('POST', '/api/v2/payments', { key: m.key, idem: `wh-${i}`, body: { amount: 900, currency: 'AZN' } });
      ids.push(c.body.id);
      // Two thirds are paid, the rest left to expire (each process runs the expiry scheduler).
      if (i % 3 !== 0) await rig.request('POST', `/api/v2/test/payments/${c.body.id}/complete`, { key: m.key, body: { outcome: 'succeeded' } });
    });
    t.equal(ids.length, 30);
    const distinct = () => new Set(receiver.received.map((r) => r.headers['x-svc-event-id'])).size;
    await until('30 distinct events at the receiver', () => distinct() >= 30, (WINDOW_S + 30) * 1000);
    const byPayment = new Map<string, Set<string>>();
    for (const r of receiver.received) {
      const body = JSON.parse(r.body);
      const k = `${body.data.object.id} ${body.type}`;
      byPayment.set(k, (byPayment.get(k) ?? new Set()).add(body.id));
    }
    t.equal(byPayment.size, 30, 'one event per payment: 20 payment.succeeded, 10 payment.expired');
    t.ok([...byPayment.values()].every((s) => s.size === 1), 'a repeated delivery only ever repeats the same event id');
    t.equal([...byPayment.keys()].filter((k) => k.endsWith('payment.expired')).length, 10);
    const secret = (await rig.admin('GET', `/internal/merchants/${m.id}/webhook-settings`)).body.data?.[0]?.secret ?? ws.body.secret;
    t.ok(receiver.received.every((r) => signatureValid(r, secret)), 'every delivery signed');
    const { rows } = await rig.db.query("SELECT aggregate_id, count(*)::int AS n FROM events WHERE type = 'payment.expired' AND merchant_id = $1 GROUP BY 1", [m.id]);
    t.equal(rows.length, 10);
    t.ok(rows.every((r: { n: number }) => r.n === 1), 'no payment expired twice');
  });

  await t.test('faults under load: a replica killed and restarted, a Redis master stopped and started', async (t) => {
    const m = await rig.merchant();
    const load = startLoad(rig, m.key, { concurrency: 16, tag: 'fault' });
    try {
      load.phase = 'baseline';
      await load.acked(150);

      load.phase = 'replica killed';
      await rig.kill(1);
      await load.acked(150);

      load.phase = 'replica restarted';
      await rig.restart(1);
      const before = await metric(rig, 1, 'http_requests_total{method="POST",route="/api/v2/payments"');
      await until('nginx sends creates to the restarted replica again', async () => {
        await load.acked(20);
        return (await metric(rig, 1, 'http_requests_total{method="POST",route="/api/v2/payments"')) > before;
      }, 60_000, 0);

      load.phase = 'redis master down';
      await rig.redis.stop(0);
      await load.acked(200);
      const healthDown = await Promise.all(rig.replicas.map((r) => rig.request('GET', '/v2/health', {}, r.url)));
      t.ok(healthDown.every((h) => h.status === 200 && h.body.kv.status === 'down' && h.body.status === 'degraded'),
        `every process reports kv down while a master is down: ${healthDown.map((h) => h.body?.kv?.status)}`);
      const open = await Promise.all([0, 1, 2].map((i) => metric(rig, i, 'kv_breaker_open')));
      t.ok(open.some((n) => n > 0), `a breaker is open (kv_breaker_open per process: ${open})`);
      const failOpen = await Promise.all([0, 1, 2].map((i) => metric(rig, i, 'kv_fail_open_total')));
      t.ok(failOpen.some((n) => n > 0), 'creates failed open');
      // Concurrent sends of one key while a third of the idempotency keys have no Redis: Postgres
      // alone decides, and still one payment per key.
      await sameKeyBurst(t, rig, 'idem-redis-down');

      load.phase = 'redis master back';
      await rig.redis.start(0);
      await until('health up on every process', async () => (await Promise.all(rig.replicas.map((r) => rig.request('GET', '/v2/health', {}, r.url))))
        .every((h) => h.body?.kv?.status === 'up'), 30_000, 100);
      await load.acked(100);
    } finally {
      await load.stop();
    }
    for (const p of ['baseline', 'replica killed', 'replica restarted', 'redis master down', 'redis master back']) t.comment(latency(load.attempts, p));

    const failed = load.outcomes.filter((o) => o.status !== 201);
    t.same(failed, [], 'every create got its 201 (retries with the same key resolved every lost answer)');
    const down = load.attempts.filter((a) => a.phase === 'redis master down' || a.phase === 'redis master back');
    t.same(down.filter((a) => a.status === 0 || a.status >= 500), [], 'a Redis master down costs no 5xx: Redis fails open');

    const acked = load.outcomes.filter((o) => o.status === 201);
    const { rows } = await rig.db.query('SELECT id, idempotency_key FROM payments WHERE merchant_id = $1', [m.id]);
    const byKey = new Map<string, string[]>();
    for (const r of rows as { id: string; idempotency_key: string }[]) byKey.set(r.idempotency_key, [...(byKey.get(r.idempotency_key) ?? []), r.id]);
    t.equal(rows.length, byKey.size, 'one payment per Idempotency-Key');
    const lost = acked.filter((o) => !byKey.get(o.key)?.includes(o.id!));
    t.same(lost, [], `every acknowledged create is in Postgres under its key (${acked.length} acknowledged)`);
    t.equal(byKey.size, load.outcomes.length, 'nothing created that no client asked for');
  });
});

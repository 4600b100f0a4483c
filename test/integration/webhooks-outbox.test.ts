// The outbox: events and deliveries exist exactly when the change that caused them committed; the
// gateway dispatch path signs and shapes its own envelope.
import t from 'tap';
import { testPool } from '../helpers/env.js';
import pg from 'pg';
import crypto from 'node:crypto';
import { WebhookDispatcher } from '../../actors/webhook-dispatcher.js';
import { createPayment, transition } from '../../src/domain/payment.js';
import { paymentId } from '../../src/domain/ids.js';
import { insertPayments, updatePayments } from '../../src/store/payments-repo.js';
import { analyzedPlan, queryOf, rescannedCtes } from '../helpers/plan.js';
import { CLAIM_SQL, claimDeliveries, insertEventWithDelivery, recordAttempts, upsertSettings } from '../../src/store/webhooks-repo.js';
import { startTestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';

const s = await startTestServer(t, { WEBHOOK_DISPATCH: '0' });
const pool = testPool(s.srv.databaseUrl, 4);
t.teardown(() => pool.end());
const m = await s.merchant();
await upsertSettings(pool, { merchantId: m.id, api: 'merchant', channelId: null, url: 'https://hooks.example/h', events: null });

const fresh = () => createPayment(
  { amount: 700, currency: 'AZN', orderId: null, description: null, metadata: {}, method: null, customer: {}, returnUrl: null, locale: null, source: 'api' },
  { id: paymentId(Date.now()), merchantId: m.id, livemode: false, fees: { feeBps: 0, feeFixed: 0 }, windowSeconds: 60, requestId: 'req_x', idempotencyKey: null, requestHash: null },
  Date.now());
const count = async (table: string, where: string, v: unknown[]) => (await pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, v)).rows[0].n;

t.test('a committed transition writes its event and one delivery per subscribed endpoint', async (t) => {
  const p = fresh();
  await insertPayments(pool, [p]);
  const r = transition(p, { type: 'expire' }, Date.now());
  if (!r.ok) throw new Error(r.code);
  t.equal((await updatePayments(pool, [{ next: r.state, prev: p, events: r.events }]))[0], 1);
  t.equal(await count('events', "aggregate_id = $1 AND type = 'payment.expired'", [p.id]), 1);
  t.equal(await count('webhook_deliveries d JOIN events e ON e.id = d.event_id', "e.aggregate_id = $1", [p.id]), 1);
});

t.test('a version conflict writes nothing', async (t) => {
  const p = fresh();
  await insertPayments(pool, [p]);
  const r = transition(p, { type: 'expire' }, Date.now());
  if (!r.ok) throw new Error(r.code);
  t.equal((await updatePayments(pool, [{ next: r.state, prev: { ...p, version: p.version + 5 }, events: r.events }]))[0], null);
  t.equal(await count('events', "aggregate_id = $1 AND type <> 'payment.created'", [p.id]), 0);
  t.equal(await count('webhook_deliveries d JOIN events e ON e.id = d.event_id', 'e.aggregate_id = $1', [p.id]), 0);
});

t.test('a transaction rolled back after the change leaves no event and no delivery', async (t) => {
  const p = fresh();
  await insertPayments(pool, [p]);
  const r = transition(p, { type: 'expire' }, Date.now());
  if (!r.ok) throw new Error(r.code);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // The same statement the actor runs, inside a transaction that then fails.
    const one = { query: client.query.bind(client) } as unknown as pg.Pool;
    t.equal((await updatePayments(one, [{ next: r.state, prev: p, events: r.events }]))[0], 1);
    await client.query('SELECT 1/0').catch(() => {});
    await client.query('ROLLBACK');
  } finally { client.release(); }
  t.equal((await pool.query('SELECT status FROM payments WHERE id = $1', [p.id])).rows[0].status, 'pending');
  t.equal(await count('events', "aggregate_id = $1 AND type = 'payment.expired'", [p.id]), 0);
  t.equal(await count('webhook_deliveries d JOIN events e ON e.id = d.event_id', 'e.aggregate_id = $1', [p.id]), 0);
});

t.test('gateway path: flat envelope, timestamped sha256 signature, delivery header', async (t) => {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const { settings } = await upsertSettings(pool, { merchantId: m.id, api: 'gateway', channelId: null, url: rx.url, events: null });
  const data = { payment_id: 'cs_test_1', amount: 4900, currency: 'RUB', status: 'succeeded', channel_id: 'ch_1', channel_code: 'web' };
  const { eventId, deliveryId } = await insertEventWithDelivery(pool, { merchantId: m.id, livemode: false, api: 'gateway', type: 'payment.succeeded', aggregateId: 'cs_test_1', data, settingsId: settings.id });
  const d = new WebhookDispatcher({ db: pool, publicBaseUrl: s.url, allowPrivate: true, timeoutMs: 1000, leaseMs: 5000, pollMs: 1000, maxInflight: 4, perEndpoint: 2 });
  // A finished attempt kicks one more claim of anything due: stopped here, it never outlives the test.
  t.teardown(() => d.stop());
  await d.runOnce(deliveryId);
  t.equal(rx.received.length, 1);
  const rec = rx.received[0];
  const body = JSON.parse(rec.body);
  t.same(Object.keys(body), ['id', 'type', 'livemode', 'created_at', 'data']);
  t.same(body.data, data);
  t.equal(body.id, eventId);
  t.equal(rec.headers['x-svc-delivery'], deliveryId);
  t.equal(rec.headers['x-svc-event'], 'payment.succeeded');
  t.equal(rec.headers['x-svc-event-id'], eventId);
  t.equal(rec.headers['x-svc-attempt'], '1');
  const ts = String(rec.headers['x-svc-timestamp']);
  const expected = crypto.createHmac('sha256', settings.secret).update(`${ts}.${rec.body}`).digest('hex');
  t.equal(rec.headers['x-svc-signature'], `sha256=${expected}`);
});

t.test('attempts that end together are recorded in one statement; one taken over meanwhile is not recorded, the others are', async (t) => {
  const { settings } = await upsertSettings(pool, { merchantId: m.id, api: 'gateway', channelId: null, url: 'https://hooks.example/grouped', events: null });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    // Due in an hour: only this test's forced claims take them (never a dispatcher's own poll).
    const { deliveryId } = await insertEventWithDelivery(pool, { merchantId: m.id, livemode: false, api: 'gateway', type: 'payment.succeeded', aggregateId: `cs_grouped_${i}`, data: { i }, settingsId: settings.id, dueInMs: 3_600_000 });
    ids.push(deliveryId);
  }
  const claimed = [];
  for (const id of ids) claimed.push(...await claimDeliveries(pool, { limit: 1, leaseMs: 60_000, rooms: new Map(), perEndpoint: 10, only: id, force: true }));
  t.equal(claimed.length, 3, 'all three leased');
  // The second's lease ran out and another process claimed it again (attempt 2): attempt 1 is not its to record.
  await pool.query("UPDATE webhook_deliveries SET attempts = attempts + 1 WHERE id = $1", [ids[1]]);
  const before = (await pool.query("SELECT count(*)::int AS n FROM webhook_attempts")).rows[0].n;
  const now = Date.now();
  const out = await recordAttempts(pool, [
    { deliveryId: ids[0], attempt: 1, startedAt: now, durationMs: 12, statusCode: 200, error: null, next: { status: 'succeeded' } },
    { deliveryId: ids[1], attempt: 1, startedAt: now, durationMs: 30, statusCode: 500, error: null, next: { status: 'pending', delayMs: 30_000 } },
    { deliveryId: ids[2], attempt: 1, startedAt: now, durationMs: 40, statusCode: 503, error: 'busy', next: { status: 'pending', delayMs: 60_000 } },
  ]);
  t.same(out, [true, false, true]);
  const rows = (await pool.query(`SELECT id, status, last_status, last_error, lease_until, (extract(epoch FROM next_attempt_at - now()))::int AS due_in
                                  FROM webhook_deliveries WHERE id = ANY($1)`, [ids])).rows;
  const of = (id: string) => rows.find((r) => r.id === id);
  t.match(of(ids[0]), { status: 'succeeded', last_status: 200, last_error: null, lease_until: null });
  t.match(of(ids[1]), { status: 'delivering', last_status: null }, 'the other process\'s attempt is left alone');
  t.match(of(ids[2]), { status: 'pending', last_status: 503, last_error: 'busy', lease_until: null });
  t.ok(of(ids[2]).due_in > 50 && of(ids[2]).due_in <= 60, `retry due in about a minute (${of(ids[2]).due_in} s)`);
  // The attempt log holds every attempt made, the taken-over one's too (the receiver did get it).
  t.equal((await pool.query("SELECT count(*)::int AS n FROM webhook_attempts")).rows[0].n, before + 3);
});

t.test('a claim locks and writes only the deliveries it takes: the rest of its candidates are left as they were', async (t) => {
  const m2 = await s.merchant();
  const { settings } = await upsertSettings(pool, { merchantId: m2.id, api: 'merchant', channelId: null, url: 'https://hooks.example/room', events: null });
  for (let i = 0; i < 10; i++) {
    await insertEventWithDelivery(pool, { merchantId: m2.id, livemode: false, api: 'merchant', type: 'payment.succeeded', aggregateId: `pay_room_${i}`, data: { i }, settingsId: settings.id });
  }
  // Room for two at this endpoint and none at any other: a claim of up to ten has the ten as candidates and takes two.
  const claimed = await claimDeliveries(pool, { limit: 10, leaseMs: 60_000, rooms: new Map([[settings.id, 2]]), perEndpoint: 0 });
  t.equal(claimed.length, 2, 'two taken: the endpoint\'s room');
  const rows = (await pool.query<{ status: string; attempts: number; locked: boolean }>(
    "SELECT status, attempts, xmax::text <> '0' AS locked FROM webhook_deliveries WHERE settings_id = $1", [settings.id])).rows;
  t.equal(rows.filter((r) => r.status === 'delivering' && r.attempts === 1).length, 2, 'the two taken are leased');
  const rest = rows.filter((r) => r.status === 'pending');
  t.equal(rest.length, 8, 'eight still pending');
  t.equal(rest.filter((r) => r.locked || r.attempts !== 0).length, 0, 'none of the eight was locked or written (no row lock left in their xmax)');
});

t.test('a claim reads its candidates in the order of each partial index, never every due delivery', async (t) => {
  const c = await pool.connect();
  try {
    await c.query('SET enable_seqscan = off'); // a small table: make the planner say how the indexes serve
    const plan = (await c.query(`EXPLAIN ${CLAIM_SQL}`, [16, 60_000, [], null, [], 10, false])).rows.map((r) => r['QUERY PLAN']).join('\n');
    t.match(plan, /Index Scan using webhook_deliveries_due/, 'due deliveries: an ordered scan of their index, cut at the limit');
    t.match(plan, /Index Scan using webhook_deliveries_leased/, 'lapsed leases: the same on theirs');
    t.notMatch(plan, /BitmapOr|Bitmap Heap Scan on webhook_deliveries/, 'no bitmap of every due row to sort');
  } finally {
    c.release();
  }
});

t.test('claims racing on one database lease each delivery once', async (t) => {
  const m3 = await s.merchant();
  const { settings } = await upsertSettings(pool, { merchantId: m3.id, api: 'merchant', channelId: null, url: 'https://hooks.example/race', events: null });
  const mine = new Set<string>();
  for (let i = 0; i < 120; i++) {
    mine.add((await insertEventWithDelivery(pool, { merchantId: m3.id, livemode: false, api: 'merchant', type: 'payment.succeeded', aggregateId: `pay_race_${i}`, data: { i }, settingsId: settings.id })).deliveryId);
  }
  const racers = testPool(s.srv.databaseUrl, 6);
  t.teardown(() => racers.end());
  const leased: string[] = [];
  const pending = async () => (await pool.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE settings_id = $1 AND status = 'pending'", [settings.id])).rows[0].n as number;
  await Promise.all(Array.from({ length: 6 }, async () => {
    for (let round = 0; round < 500; round++) {
      const got = await claimDeliveries(racers, { limit: 7, leaseMs: 60_000, rooms: new Map([[settings.id, 7]]), perEndpoint: 0 });
      leased.push(...got.map((d) => d.id).filter((id) => mine.has(id)));
      if (got.length === 0 && await pending() === 0) return;
    }
  }));
  t.equal(await pending(), 0, 'every delivery was leased');
  t.equal(leased.length, 120, 'as many leases as deliveries');
  t.equal(new Set(leased).size, 120, 'none leased twice');
  const rows = (await pool.query<{ attempts: number }>('SELECT attempts FROM webhook_deliveries WHERE settings_id = $1', [settings.id])).rows;
  t.ok(rows.every((r) => r.attempts === 1), 'each counted one attempt');
});

t.test('a grouped settlement with webhook endpoints reads each of its CTEs once (no step costs the square of the group)', async (t) => {
  const ps = Array.from({ length: 24 }, () => fresh());
  await insertPayments(pool, ps);
  const us = ps.map((p) => {
    const r = transition(p, { type: 'expire' }, Date.now());
    if (!r.ok) throw new Error(r.code);
    return { next: r.state, prev: p, events: r.events };
  });
  const plan = await analyzedPlan(pool, await queryOf((db) => updatePayments(db, us)));
  t.same(rescannedCtes(plan), [], 'no CTE is scanned once per row of another');
  // The same group, executed: one event and one delivery per payment, each payment told its own count.
  t.same(await updatePayments(pool, us), ps.map(() => 1));
  t.equal(await count('webhook_deliveries d JOIN events e ON e.id = d.event_id', "e.aggregate_id = ANY($1) AND e.type = 'payment.expired'", [ps.map((p) => p.id)]), 24);
});

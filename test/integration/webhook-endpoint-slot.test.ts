// WEBHOOK_ENDPOINT_CONCURRENCY bounds the requests at an endpoint: a slot is free again once its
// request has ended, before the attempt is recorded (the delivery stays leased until then), so a
// slow record never holds the endpoint's queue (issue 25); every attempt is still recorded, once.
// Endpoints that share a host are bounded each on its own (the HTTP client's pool adds no limit).
// The bound adapts: an endpoint that answers fast while saturated is widened one slot per such
// answer (a round of them doubles it) up to WEBHOOK_ENDPOINT_CONCURRENCY_MAX, and failures narrow it
// back to where it started.
import t from 'tap';
import type pg from 'pg';
import { WebhookDispatcher } from '../../actors/webhook-dispatcher.js';
import { insertEventWithDelivery, upsertSettings } from '../../src/store/webhooks-repo.js';
import { testPool } from '../helpers/env.js';
import { startReceiver } from '../helpers/receiver.js';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

/**
 * A started dispatcher whose endpoint bound starts at 2 and adapts up to `max`, every 2xx counting as
 * fast (the machine's speed plays no part: only the slots decide), and `full(n)`: wait until n requests
 * are open at the endpoint and n is its bound. Teardown answers what is still held, closes the receiver
 * and stops the dispatcher.
 */
function adaptingDispatcher(t: { teardown(fn: () => unknown): void }, o: { db: pg.Pool; url: string; settingsId: string; max: number; held: Array<{ answer: () => void }>; close: () => Promise<unknown> }) {
  const d = new WebhookDispatcher({
    db: o.db, publicBaseUrl: o.url, allowPrivate: true, timeoutMs: 300_000, leaseMs: 600_000, pollMs: 60_000, maxInflight: 64,
    perEndpoint: 2, perEndpointMax: o.max, endpointFastMs: 600_000,
  });
  t.teardown(async () => { for (const h of o.held.splice(0)) h.answer(); await o.close(); await d.stop(); });
  d.start();
  const full = (n: number) => until(`${n} requests open at the endpoint, its bound`, () => o.held.length === n && d.boundOf(o.settingsId) === n, 30_000);
  return { d, full };
}

t.test('an endpoint slot frees when its request ends; records that lag behind do not hold it', async (t) => {
  const s = await startTestServer(t, { WEBHOOK_DISPATCH: '0' });
  const pool = testPool(s.srv.databaseUrl, 4);
  t.teardown(() => pool.end());
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const m = await s.merchant();
  const { settings } = await upsertSettings(pool, { merchantId: m.id, api: 'gateway', channelId: null, url: rx.url, events: null });
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const { deliveryId } = await insertEventWithDelivery(pool, { merchantId: m.id, livemode: false, api: 'gateway', type: 'payment.succeeded', aggregateId: `cs_slot_${i}`, data: { i }, settingsId: settings.id });
    ids.push(deliveryId);
  }
  // Records wait until the test lets them through; everything else goes to Postgres as usual.
  let open!: () => void;
  const opened = new Promise<void>((r) => { open = r; });
  const gated = Object.create(pool) as pg.Pool;
  gated.query = ((q: unknown, v?: unknown) => ((q as { name?: string } | null)?.name === 'webhook_record'
    ? opened.then(() => pool.query(q as never, v as never))
    : pool.query(q as never, v as never))) as pg.Pool['query'];
  const d = new WebhookDispatcher({ db: gated, publicBaseUrl: s.url, allowPrivate: true, timeoutMs: 5000, leaseMs: 60_000, pollMs: 60_000, maxInflight: 10, perEndpoint: 2 });
  t.teardown(async () => { open(); await d.stop(); });
  d.start();

  // Two slots, four deliveries: the last two go out while the first two are not recorded yet.
  await until('four requests at the endpoint', () => rx.received.length >= 4, 30_000);
  const leased = await pool.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE id = ANY($1) AND status = 'delivering'", [ids]);
  t.equal(leased.rows[0].n, 4, 'all four sent while none was recorded: each stays leased until its record');
  t.equal(new Set(rx.received.map((r) => String(r.headers['x-svc-delivery']))).size, 4, 'each delivery sent once');

  open();
  await until('every attempt recorded', async () =>
    (await pool.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE id = ANY($1) AND status = 'succeeded' AND attempts = 1", [ids])).rows[0].n === 4, 30_000);
  const attempts = await pool.query('SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = ANY($1)', [ids]);
  t.equal(attempts.rows[0].n, 4, 'one recorded attempt each');
  t.equal(rx.received.length, 4, 'and no delivery sent again');
});

t.test('endpoints on one host are bounded each on its own: a slow one never takes the other\'s sockets', async (t) => {
  const s = await startTestServer(t, { WEBHOOK_DISPATCH: '0' });
  const pool = testPool(s.srv.databaseUrl, 4);
  t.teardown(() => pool.end());
  // One host and port, two endpoints (two merchants on one hosting service): the slow one holds
  // every request it gets until the receiver closes.
  const never = new Promise<void>(() => {});
  const rx = await startReceiver((r) => (r.path.endsWith('/slow') ? { status: 200, hold: never } : { status: 200 }));
  const slowSeen = () => rx.received.filter((r) => r.path.endsWith('/slow')).length;
  const slow = await s.merchant();
  const fast = await s.merchant();
  const slowHook = await upsertSettings(pool, { merchantId: slow.id, api: 'merchant', channelId: null, url: `${rx.url}/slow`, events: null });
  const fastHook = await upsertSettings(pool, { merchantId: fast.id, api: 'merchant', channelId: null, url: `${rx.url}/fast`, events: null });
  const SLOW = 24;
  for (let i = 0; i < SLOW; i++) {
    await insertEventWithDelivery(pool, { merchantId: slow.id, livemode: false, api: 'merchant', type: 'test.ping', aggregateId: `slow_${i}`, data: { i }, settingsId: slowHook.settings.id });
  }
  const d = new WebhookDispatcher({ db: pool, publicBaseUrl: s.url, allowPrivate: true, timeoutMs: 300_000, leaseMs: 600_000, pollMs: 60_000, maxInflight: 64, perEndpoint: SLOW });
  t.teardown(async () => { await rx.close(); await d.stop(); });
  d.start();
  // Every slow request reaches the receiver: none waits for a socket behind the others.
  await until(`${SLOW} requests open at the slow endpoint`, () => slowSeen() === SLOW, 60_000);

  const { deliveryId } = await insertEventWithDelivery(pool, { merchantId: fast.id, livemode: false, api: 'merchant', type: 'test.ping', aggregateId: 'fast', data: {}, settingsId: fastHook.settings.id });
  d.kick('commit');
  await until('the other endpoint on the same host delivered', async () =>
    (await pool.query("SELECT status FROM webhook_deliveries WHERE id = $1", [deliveryId])).rows[0].status === 'succeeded', 60_000);
  t.equal(slowSeen(), SLOW, 'while all the slow endpoint\'s requests are still open');
});

t.test('the bound adapts: fast answers with every slot taken widen it one by one up to the max; failures halve it once per round, back to where it started', async (t) => {
  const s = await startTestServer(t, { WEBHOOK_DISPATCH: '0' });
  const pool = testPool(s.srv.databaseUrl, 4);
  t.teardown(() => pool.end());
  // Every request is held until the test answers it, with the status the test then sets.
  const order = new Map<string, number>();
  const held: { n: number; out: { status: number; hold: Promise<void> }; answer: () => void }[] = [];
  let peak = 0;
  const rx = await startReceiver((r) => {
    let answer!: () => void;
    const out = { status: 200, hold: new Promise<void>((x) => { answer = x; }) };
    held.push({ n: order.get(String(r.headers['x-svc-delivery'])) ?? -1, out, answer });
    peak = Math.max(peak, held.length);
    return out;
  });
  // Deliveries are claimed, and their requests begun, in the order they were queued: the latest
  // queued of those open began last, so it began with every slot taken (whatever order the
  // requests reached the receiver in).
  const answerLatest = (status = 200) => {
    const h = held.reduce((a, b) => (b.n > a.n ? b : a));
    held.splice(held.indexOf(h), 1);
    h.out.status = status;
    h.answer();
  };
  const m = await s.merchant();
  const { settings } = await upsertSettings(pool, { merchantId: m.id, api: 'gateway', channelId: null, url: rx.url, events: null });
  for (let i = 0; i < 40; i++) {
    const { deliveryId } = await insertEventWithDelivery(pool, { merchantId: m.id, livemode: false, api: 'gateway', type: 'payment.succeeded', aggregateId: `cs_adapt_${i}`, data: { i }, settingsId: settings.id });
    order.set(deliveryId, i);
  }
  const { d, full } = adaptingDispatcher(t, { db: pool, url: s.url, settingsId: settings.id, max: 6, held, close: () => rx.close() });

  await full(2);
  t.equal(peak, 2, 'it starts at WEBHOOK_ENDPOINT_CONCURRENCY');
  // The latest request began with every slot taken: its fast 2xx widens the bound by one.
  for (const n of [3, 4, 5, 6]) {
    answerLatest();
    await full(n);
  }
  t.equal(peak, 6, 'widened one slot per fast answer, to 6');
  answerLatest();
  await full(6);
  t.equal(peak, 6, 'never past WEBHOOK_ENDPOINT_CONCURRENCY_MAX');

  // Failures halve it once per round of requests (the six open ones are one round): 6 → 3.
  while (held.length > 0) answerLatest(500);
  await full(3);
  t.equal(d.boundOf(settings.id), 3, 'six failures of one round halve it once');
  // The next round's failures halve it again, never below where it started: 3 → 2.
  while (held.length > 0) answerLatest(500);
  await full(2);
  t.equal(d.boundOf(settings.id), 2, 'back to the starting bound');
  await until('the nine failures recorded as attempts', async () => (await pool.query(
    'SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.settings_id = $1 AND a.status_code = 500', [settings.id])).rows[0].n === 9, 30_000);
});

t.test('with a backlog, a round of fast answers doubles the bound: every request of a claim that got all its room counts', async (t) => {
  const s = await startTestServer(t, { WEBHOOK_DISPATCH: '0' });
  const pool = testPool(s.srv.databaseUrl, 4);
  t.teardown(() => pool.end());
  const held: Array<{ answer: () => void }> = [];
  const rx = await startReceiver(() => {
    let answer!: () => void;
    const hold = new Promise<void>((x) => { answer = x; });
    held.push({ answer });
    return { status: 200, hold };
  });
  const m = await s.merchant();
  const { settings } = await upsertSettings(pool, { merchantId: m.id, api: 'merchant', channelId: null, url: rx.url, events: null });
  for (let i = 0; i < 60; i++) {
    await insertEventWithDelivery(pool, { merchantId: m.id, livemode: false, api: 'merchant', type: 'test.ping', aggregateId: `round_${i}`, data: { i }, settingsId: settings.id });
  }
  const { d, full } = adaptingDispatcher(t, { db: pool, url: s.url, settingsId: settings.id, max: 16, held, close: () => rx.close() });

  await full(2);
  // Answer the whole round, in any order: each answer frees a slot, the claims that refill it get
  // all the room they ask for (the backlog is deep), and each answer widens the bound by one.
  for (const n of [4, 8, 16]) {
    for (const h of held.splice(0)) h.answer();
    await full(n);
    t.equal(d.boundOf(settings.id), n, `a round of fast answers doubled the bound to ${n}`);
  }
  for (const h of held.splice(0)) h.answer();
  await full(16);
  t.equal(d.boundOf(settings.id), 16, 'never past WEBHOOK_ENDPOINT_CONCURRENCY_MAX');
});

// The retry schedule against a real receiver: 500, time-out, 302, 429 with Retry-After, 410,
// exhaustion into undelivered, and resend of an undelivered event. Due times and leases are
// Postgres's now(): the test moves time by moving a delivery's due time or lease in the database.
import t from 'tap';
import { testPool } from '../helpers/env.js';
import { WebhookDispatcher } from '../../actors/webhook-dispatcher.js';
import { insertEventWithDelivery, resendEvent, upsertSettings } from '../../src/store/webhooks-repo.js';
import { startTestServer } from '../helpers/server.js';
import { startReceiver, type Script } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';

// A server for its database only: its own dispatch loops are off, the test drives one by hand.
const s = await startTestServer(t, { WEBHOOK_DISPATCH: '0' });
const pool = testPool(s.srv.databaseUrl, 4);
t.teardown(() => pool.end());

const MIN = 60_000;
// The process clock of the dispatchers: it only stamps and signs attempts (fresh per attempt).
let clock = Date.now();

async function setup(script: Script) {
  const rx = await startReceiver(script);
  const m = await s.merchant();
  const { settings } = await upsertSettings(pool, { merchantId: m.id, api: 'merchant', channelId: null, url: rx.url, events: null });
  const { eventId, deliveryId } = await insertEventWithDelivery(pool, {
    merchantId: m.id, livemode: false, api: 'merchant', type: 'test.ping', aggregateId: settings.id, data: { object: 'test' }, settingsId: settings.id,
  });
  const d = new WebhookDispatcher({ db: pool, publicBaseUrl: s.url, allowPrivate: true, timeoutMs: 300, leaseMs: 5000, pollMs: 1000, maxInflight: 8, perEndpoint: 2, now: () => clock, random: () => 0.5 });
  return { rx, m, eventId, deliveryId, d };
}
const row = async (id: string) => (await pool.query('SELECT * FROM webhook_deliveries WHERE id = $1', [id])).rows[0];
/** The retry delay the last record set: next_attempt_at - updated_at (both Postgres's now()). */
const delay = async (id: string) => {
  const r = (await pool.query('SELECT extract(epoch FROM next_attempt_at - updated_at) * 1000 AS ms FROM webhook_deliveries WHERE id = $1', [id])).rows[0];
  return Math.round(Number(r.ms));
};
/** Moves the delivery's due time to `seconds` from the database's now. */
const dueIn = (id: string, seconds: number) => pool.query("UPDATE webhook_deliveries SET next_attempt_at = now() + make_interval(secs => $2) WHERE id = $1", [id, seconds]);
const attempts = async (id: string) => (await pool.query('SELECT * FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt', [id])).rows;

t.test('500, time-out and 302 are failures retried on the merchant schedule, then undelivered', async (t) => {
  const plan: Record<number, { status: number; headers?: Record<string, string>; delayMs?: number }> = {
    1: { status: 500 }, 2: { status: 200, delayMs: 1000 }, 3: { status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } },
  };
  const { rx, eventId, deliveryId, d } = await setup((_r, n) => plan[n] ?? { status: 500 });
  t.teardown(() => rx.close());
  const delays = [1, 5, 30, 120, 360, 720, 1440].map((x) => x * MIN);
  for (let attempt = 1; attempt <= 8; attempt++) {
    t.equal(await d.runOnce(deliveryId), 1, `attempt ${attempt} runs when due`);
    t.equal(await d.runOnce(deliveryId), 0, 'nothing more is due yet');
    const r = await row(deliveryId);
    t.equal(r.attempts, attempt);
    if (attempt < 8) {
      t.equal(r.status, 'pending');
      t.equal(await delay(deliveryId), delays[attempt - 1], `retry ${attempt} after ${delays[attempt - 1] / MIN} min`);
      await dueIn(deliveryId, 60);
      t.equal(await d.runOnce(deliveryId), 0, 'not before its due time');
      await dueIn(deliveryId, 0);
      clock += delays[attempt - 1];
    } else {
      t.equal(r.status, 'undelivered');
    }
  }
  const log = await attempts(deliveryId);
  t.equal(log.length, 8);
  t.equal(log[0].status_code, 500);
  t.equal(log[1].status_code, null);
  t.match(log[1].error, /timeout/);
  t.equal(log[2].status_code, 302);
  t.equal(log[2].error, 'redirect_not_followed');
  t.ok(rx.received.every((r) => r.path === '/hooks'), 'the redirect was not followed');
  t.equal(rx.received.length, 8, 'every attempt reached the receiver once');
  t.equal(new Set(rx.received.map((r) => r.headers['x-svc-event-id'])).size, 1, 'same event id on every attempt');
  t.same(rx.received.map((r) => r.headers['x-svc-attempt']), ['1', '2', '3', '4', '5', '6', '7', '8']);
  t.equal(new Set(rx.received.map((r) => r.headers['x-svc-signature'])).size, 8, 'fresh timestamp and signature per attempt');

  // Resend of the undelivered event: a new delivery of the same event, delivered now.
  rx.script = () => ({ status: 200 });
  const m = (await pool.query('SELECT merchant_id FROM events WHERE id = $1', [eventId])).rows[0].merchant_id;
  const ids = await resendEvent(pool, m, eventId);
  t.equal(ids.length, 1);
  t.equal(await d.runOnce(ids[0]), 1);
  t.equal((await row(ids[0])).status, 'succeeded');
  t.equal(rx.received.at(-1)!.headers['x-svc-event-id'], eventId);
});

t.test('429 with Retry-After later than the schedule is honoured', async (t) => {
  const { rx, deliveryId, d } = await setup(() => ({ status: 429, headers: { 'retry-after': '900' } }));
  t.teardown(() => rx.close());
  await d.runOnce(deliveryId);
  t.equal(await delay(deliveryId), 900_000);
  rx.script = () => ({ status: 503, headers: { 'retry-after': '2' } });
  await dueIn(deliveryId, 0);
  await d.runOnce(deliveryId);
  t.equal(await delay(deliveryId), 5 * MIN, 'a shorter Retry-After does not shorten the schedule');
});

t.test('410 Gone stops retrying', async (t) => {
  const { rx, deliveryId, d } = await setup(() => ({ status: 410 }));
  t.teardown(() => rx.close());
  await d.runOnce(deliveryId);
  t.equal((await row(deliveryId)).status, 'gone');
  await dueIn(deliveryId, -48 * 3600);
  t.equal(await d.runOnce(deliveryId), 0);
  t.equal(rx.received.length, 1);
});

t.test('a lease that ran out (the process died mid-attempt) is taken over', async (t) => {
  const { rx, deliveryId, d } = await setup(() => ({ status: 200 }));
  t.teardown(() => rx.close());
  const lease = (seconds: number) => pool.query("UPDATE webhook_deliveries SET status = 'delivering', attempts = 1, lease_until = now() + make_interval(secs => $2) WHERE id = $1", [deliveryId, seconds]);
  await lease(60);
  t.equal(await d.runOnce(deliveryId), 0, 'leased elsewhere');
  await lease(-1);
  t.equal(await d.runOnce(deliveryId), 1);
  const r = await row(deliveryId);
  t.equal(r.status, 'succeeded');
  t.equal(r.attempts, 2);
  t.equal(rx.received[0].headers['x-svc-attempt'], '2');
});

t.test('one slow endpoint does not hold up another merchant', async (t) => {
  // The slow endpoint answers nothing until the test lets it: no timing decides the outcome.
  let release!: () => void;
  const released = new Promise<void>((r) => { release = r; });
  const slow = await setup(() => ({ status: 200, hold: released }));
  const fast = await setup(() => ({ status: 200 }));
  t.teardown(() => { release(); return Promise.all([slow.rx.close(), fast.rx.close()]); });
  for (let i = 0; i < 6; i++) {
    const st = (await pool.query("SELECT id FROM webhook_settings WHERE merchant_id = $1", [slow.m.id])).rows[0].id;
    await insertEventWithDelivery(pool, { merchantId: slow.m.id, livemode: false, api: 'merchant', type: 'test.ping', aggregateId: 'x', data: {}, settingsId: st });
  }
  const d = new WebhookDispatcher({ db: pool, publicBaseUrl: s.url, allowPrivate: true, timeoutMs: 120_000, leaseMs: 300_000, pollMs: 1000, maxInflight: 8, perEndpoint: 2 });
  await d.tick();
  await d.tick();
  await until('the fast endpoint\'s event', () => fast.rx.received.length === 1, 60_000);
  await until('two requests held at the slow endpoint', () => slow.rx.received.length === 2, 60_000);
  t.equal(fast.rx.received.length, 1, 'the fast endpoint got its event while the slow one held two requests');
  t.equal(await d.tick(), 0, 'another claim takes none of the five left while two are open');
  const leased = await pool.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE merchant_id = $1 AND status = 'delivering'", [slow.m.id]);
  t.equal(leased.rows[0].n, 2, 'at most 2 in flight per endpoint');
  release();
  await d.idle();
  while (await d.runOnce() > 0) { /* drain */ }
  await slow.rx.waitFor(7);
  t.equal(slow.rx.received.length, 7);
});

t.test('due times and leases follow Postgres\'s clock, not the process clock', async (t) => {
  const { rx, deliveryId, d } = await setup(() => ({ status: 500 }));
  t.teardown(() => rx.close());
  // A process whose clock is a day behind still sees the delivery due, and its retry is scheduled
  // from the database's now, not from its own.
  const behind = new WebhookDispatcher({ db: pool, publicBaseUrl: s.url, allowPrivate: true, timeoutMs: 1000, leaseMs: 5000, pollMs: 1000, maxInflight: 8, perEndpoint: 2, now: () => Date.now() - 86_400_000, random: () => 0.5 });
  t.equal(await behind.runOnce(deliveryId), 1, 'due for a process whose clock is behind');
  const r = (await pool.query('SELECT extract(epoch FROM next_attempt_at - now()) AS s, extract(epoch FROM updated_at - now()) AS u FROM webhook_deliveries WHERE id = $1', [deliveryId])).rows[0];
  t.ok(Number(r.s) > 0 && Number(r.s) <= 60, `next attempt one minute after the database's now (${r.s} s)`);
  t.ok(Math.abs(Number(r.u)) < 600, 'updated at the database\'s now');
  // A process whose clock is a day ahead does not attempt it early.
  const ahead = new WebhookDispatcher({ db: pool, publicBaseUrl: s.url, allowPrivate: true, timeoutMs: 1000, leaseMs: 5000, pollMs: 1000, maxInflight: 8, perEndpoint: 2, now: () => Date.now() + 86_400_000 });
  t.equal(await ahead.runOnce(deliveryId), 0, 'not due for a process whose clock is ahead');
  t.equal(await d.runOnce(deliveryId), 0);
});

t.test('an attempt that throws (malformed event data) is recorded as a failed attempt and retried on schedule', async (t) => {
  const rx = await startReceiver(() => ({ status: 200 }));
  t.teardown(() => rx.close());
  const m = await s.merchant();
  const { settings } = await upsertSettings(pool, { merchantId: m.id, api: 'merchant', channelId: null, url: rx.url, events: null });
  const { deliveryId } = await insertEventWithDelivery(pool, {
    merchantId: m.id, livemode: false, api: 'merchant', type: 'payment.succeeded', aggregateId: 'pay_x', data: { malformed: true }, settingsId: settings.id,
  });
  const d = new WebhookDispatcher({ db: pool, publicBaseUrl: s.url, allowPrivate: true, timeoutMs: 1000, leaseMs: 60_000, pollMs: 1000, maxInflight: 8, perEndpoint: 2, random: () => 0.5 });
  t.equal(await d.runOnce(deliveryId), 1);
  const r = await row(deliveryId);
  t.equal(r.status, 'pending', 'not left leased');
  t.match(r.last_error, /^internal_error: /);
  t.equal(await delay(deliveryId), MIN, 'next attempt on the schedule');
  const log = await attempts(deliveryId);
  t.equal(log.length, 1, 'the attempt is in the log');
  t.match(log[0].error, /^internal_error: /);
  await dueIn(deliveryId, 0);
  t.equal(await d.runOnce(deliveryId), 1);
  t.equal((await attempts(deliveryId)).length, 2, 'the retry is recorded too');
  t.equal(rx.received.length, 0, 'nothing malformed was sent');
});

t.test('a dispatcher driven by hand (the main thread\'s, for pings and resends) attempts only what it is asked', async (t) => {
  // Two due deliveries; the dispatcher is asked for the first. When that attempt ends, a started
  // dispatcher looks for more at once; one that was never started must not (with WEBHOOK_DISPATCH=0
  // the main thread's would otherwise deliver any merchant's due events after an operator's ping).
  const { rx, deliveryId, d } = await setup(() => ({ status: 200 }));
  t.teardown(() => rx.close());
  const other = await setup(() => ({ status: 200 }));
  t.teardown(() => other.rx.close());
  t.equal(await d.runOnce(deliveryId), 1, 'the delivery asked for is attempted');
  // stop() waits for any look it started on its own, and for that look's attempts.
  await d.stop();
  t.equal((await row(deliveryId)).status, 'succeeded');
  const r = await row(other.deliveryId);
  t.equal(r.status, 'pending', 'the other due delivery was left to the dispatchers that run');
  t.equal(r.attempts, 0);
  t.equal(other.rx.received.length, 0);
});

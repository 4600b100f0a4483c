// Test clocks (issue 26), merchant API: a payment on a clock expires when the clock is advanced past
// its window (never waiting the real 30 minutes), with the payment.expired webhook a real wait gives
// (signed with the wall clock's t=), while a payment not on the clock is untouched; a failing
// endpoint's retries are delivered as the clock advances, each exactly once; the API's refusals.
import t from 'tap';
import http from 'node:http';
import { startTestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';
import { histogramCounts } from '../helpers/histogram.js';

const s = await startTestServer(t, { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '100', EXPIRY_POLL_MS: '100' });
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

async function ready(key: string, id: string, base = '/api/v2/test_helpers/test_clocks') {
  let last: any = null;
  await until(`clock ${id} ready`, async () => { last = (await s.request('GET', `${base}/${id}`, { key })).body; return last?.status === 'ready'; });
  return last;
}

t.test('advance 31 minutes: the clocked payment expires with its webhook, the other stays pending', async (t) => {
  const hooks = await startReceiver();
  t.teardown(() => hooks.close());
  const m = await s.merchant();
  await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'merchant', url: hooks.url });
  const start = Date.parse('2026-01-10T09:00:00.000Z');
  const c = await s.request('POST', '/api/v2/test_helpers/test_clocks', { key: m.key, body: { frozen_time: iso(start), name: 'expiry' } });
  t.equal(c.status, 201);
  t.match(c.body, { id: /^clock_/, object: 'test_clock', name: 'expiry', frozen_time: iso(start), status: 'ready', livemode: false });
  const clock = c.body.id as string;

  const p = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 500, test_clock: clock } });
  t.equal(p.status, 201, p.text);
  t.equal(p.body.created_at, iso(start), "created_at is the clock's time");
  const row = await s.db.query('SELECT expires_at, test_clock_id FROM payments WHERE id = $1', [p.body.id]);
  t.same([new Date(row.rows[0].expires_at).getTime(), row.rows[0].test_clock_id], [start + 30 * MIN, clock], 'the window runs from the clock');
  const other = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 501 } });

  // Not yet due on the clock: an advance of 29 minutes fires nothing.
  const a1 = await s.request('POST', `/api/v2/test_helpers/test_clocks/${clock}/advance`, { key: m.key, body: { frozen_time: iso(start + 29 * MIN) } });
  t.equal(a1.status, 200, a1.text);
  await ready(m.key, clock);
  t.equal((await s.request('GET', `/api/v2/payments/${p.body.id}`, { key: m.key })).body.status, 'pending');

  const waits = async () => histogramCounts((await s.admin('GET', '/metrics')).text, 'webhook_dispatch_wait_seconds', '7200');
  const waitsBefore = await waits();
  const a2 = await s.request('POST', `/api/v2/test_helpers/test_clocks/${clock}/advance`, { key: m.key, body: { frozen_time: iso(start + 31 * MIN) } });
  t.equal(a2.status, 200);
  t.match(a2.body, { frozen_time: iso(start + 31 * MIN) });
  t.ok(['advancing', 'ready'].includes(a2.body.status));
  const done = await ready(m.key, clock);
  t.equal(done.frozen_time, iso(start + 31 * MIN));
  // Ready means everything due has committed: the expiry and its delivery.
  const got = await s.request('GET', `/api/v2/payments/${p.body.id}`, { key: m.key });
  t.equal(got.body.status, 'expired');
  t.equal(got.body.failure.code, 'expired');
  const delivered = hooks.received.filter((r) => JSON.parse(r.body).type === 'payment.expired');
  t.equal(delivered.length, 1, 'one payment.expired delivered by the time the clock is ready');
  // The event's time is the clock's (ten months back): the latency metrics leave a clock's deliveries
  // out rather than count ten months of waiting.
  const waitsAfter = await waits();
  t.equal(waitsAfter.count - waitsBefore.count, waitsAfter.upTo - waitsBefore.upTo, 'no dispatch wait of the clock\'s months in /metrics');
  // The delivery was written now (Postgres's clock), while it was due on the clock's time.
  const dl = await s.db.query(
    `SELECT d.created_at, d.next_attempt_at, e.created_at AS event_at FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
     WHERE e.aggregate_id = $1 AND e.type = 'payment.expired'`, [p.body.id]);
  t.equal(dl.rows.length, 1);
  t.ok(Math.abs(new Date(dl.rows[0].created_at).getTime() - Date.now()) < 5 * MIN, "the delivery's created_at is the real time of its write");
  t.equal(new Date(dl.rows[0].next_attempt_at).toISOString(), iso(start + 31 * MIN), "and it was due at the event's time on the clock");
  const ts = Number(/t=(\d+)/.exec(String(delivered[0].headers['x-svc-signature']))![1]);
  t.ok(Math.abs(ts * 1000 - Date.now()) < 5 * MIN, 'the signature keeps the wall clock (t= within a receiver\'s tolerance)');
  const ev = await s.db.query("SELECT created_at FROM events WHERE aggregate_id = $1 AND type = 'payment.expired'", [p.body.id]);
  t.equal(ev.rows.length, 1, 'expired once');
  t.equal(new Date(ev.rows[0].created_at).toISOString(), iso(start + 31 * MIN), "the event's time is the clock's");
  t.equal((await s.request('GET', `/api/v2/payments/${other.body.id}`, { key: m.key })).body.status, 'pending', 'a payment not on the clock is untouched');
});

t.test('a failing endpoint: its retries are delivered as the clock advances, once each', async (t) => {
  const hooks = await startReceiver(() => ({ status: 500 }));
  t.teardown(() => hooks.close());
  const m = await s.merchant();
  await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'merchant', url: hooks.url });
  const start = Date.parse('2026-02-01T00:00:00.000Z');
  const clock = (await s.request('POST', '/api/v2/test_helpers/test_clocks', { key: m.key, body: { frozen_time: iso(start) } })).body.id as string;
  const p = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 700, test_clock: clock } });
  let now = start;
  const advanceTo = async (to: number) => {
    const r = await s.request('POST', `/api/v2/test_helpers/test_clocks/${clock}/advance`, { key: m.key, body: { frozen_time: iso(to) } });
    if (r.status !== 200) throw new Error(r.text);
    now = to;
    await ready(m.key, clock);
  };
  const attempts = async () => (await s.db.query(
    `SELECT d.attempts, d.status, d.next_attempt_at FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
     WHERE e.aggregate_id = $1 AND e.type = 'payment.expired'`, [p.body.id])).rows[0];
  await advanceTo(start + 31 * MIN);
  t.equal(hooks.received.length, 1, 'the first attempt is made when the payment expires');
  let d = await attempts();
  t.equal(d.attempts, 1);
  t.equal(new Date(d.next_attempt_at).getTime() - now > 0.9 * MIN && new Date(d.next_attempt_at).getTime() - now < 1.1 * MIN, true, 'the retry is due 1 minute later on the clock');
  await advanceTo(now + 30_000);
  t.equal(hooks.received.length, 1, 'not yet due: no retry');
  await advanceTo(now + 60_000);
  t.equal(hooks.received.length, 2, 'the retry due after 1 minute');
  await advanceTo(now + 6 * MIN);
  t.equal(hooks.received.length, 3, 'the one due after 5 more minutes');
  d = await attempts();
  t.same([d.attempts, d.status], [3, 'pending']);
  const ids = new Set(hooks.received.map((r) => r.headers['x-svc-event-id']));
  t.equal(ids.size, 1, 'retries of one event');
  t.same(hooks.received.map((r) => r.headers['x-svc-attempt']), ['1', '2', '3'], 'in order, once each');
});

t.test('refusals: live keys, unknown clocks, time going back or too far, another merchant', async (t) => {
  const m = await s.merchant();
  const other = await s.merchant();
  const live = await s.request('POST', '/api/v2/test_helpers/test_clocks', { key: m.liveKey, body: {} });
  t.same([live.status, live.body.error.code], [403, 'test_clock_live_mode']);
  const clock = (await s.request('POST', '/api/v2/test_helpers/test_clocks', { key: m.key, body: {} })).body;
  t.equal(clock.status, 'ready');
  t.ok(Math.abs(Date.parse(clock.frozen_time) - Date.now()) < 5 * MIN, 'frozen_time defaults to now');
  const livePay = await s.request('POST', '/api/v2/payments', { key: m.liveKey, body: { amount: 100, currency: 'RUB', test_clock: clock.id } });
  t.same([livePay.status, livePay.body.error?.code, livePay.body.error?.param], [403, 'test_clock_live_mode', 'test_clock']);
  const foreign = await s.request('POST', '/api/v2/payments', { key: other.key, body: { amount: 100, test_clock: clock.id } });
  t.same([foreign.status, foreign.body.error.code], [404, 'test_clock_not_found']);
  t.equal((await s.request('GET', `/api/v2/test_helpers/test_clocks/${clock.id}`, { key: other.key })).status, 404, "another merchant's clock is not found");
  const back = await s.request('POST', `/api/v2/test_helpers/test_clocks/${clock.id}/advance`, { key: m.key, body: { frozen_time: iso(Date.parse(clock.frozen_time) - 1000) } });
  t.same([back.status, back.body.error.code, back.body.error.param], [422, 'test_clock_time_invalid', 'frozen_time']);
  const far = await s.request('POST', `/api/v2/test_helpers/test_clocks/${clock.id}/advance`, { key: m.key, body: { frozen_time: iso(Date.parse(clock.frozen_time) + 61 * 24 * 60 * MIN) } });
  t.same([far.status, far.body.error.code], [422, 'test_clock_time_invalid']);
  const bad = await s.request('POST', `/api/v2/test_helpers/test_clocks/${clock.id}/advance`, { key: m.key, body: { frozen_time: 'tomorrow' } });
  t.same([bad.status, bad.body.error.code], [422, 'test_clock_time_invalid']);
  const list = await s.request('GET', '/api/v2/test_helpers/test_clocks?limit=10', { key: m.key });
  t.same(list.body.data.map((c: { id: string }) => c.id), [clock.id]);
  const del = await s.request('DELETE', `/api/v2/test_helpers/test_clocks/${clock.id}`, { key: m.key });
  t.match(del.body, { id: clock.id, deleted: true });
  t.equal((await s.request('GET', `/api/v2/test_helpers/test_clocks/${clock.id}`, { key: m.key })).status, 404);
});

t.test('two advances of one clock at once: one moves it, the other is refused', async (t) => {
  const m = await s.merchant();
  const clock = (await s.request('POST', '/api/v2/test_helpers/test_clocks', { key: m.key, body: {} })).body;
  const to = iso(Date.parse(clock.frozen_time) + MIN);
  const rs = await Promise.all([0, 1, 2, 3].map(() => s.request('POST', `/api/v2/test_helpers/test_clocks/${clock.id}/advance`, { key: m.key, body: { frozen_time: to } })));
  const ok = rs.filter((r) => r.status === 200);
  t.equal(ok.length, 1, 'exactly one advance committed');
  t.ok(rs.filter((r) => r.status !== 200).every((r) => r.status === 409 && r.body.error.code === 'test_clock_advancing' || (r.status === 422 && r.body.error.code === 'test_clock_time_invalid')),
    'the others: still advancing (409), or the clock is already there (422)');
});

t.test('a link on a clock: its expiry follows the clock, and its payments are on the clock', async (t) => {
  const m = await s.merchant();
  const start = Date.parse('2026-04-01T10:00:00.000Z');
  const clock = (await s.request('POST', '/api/v2/test_helpers/test_clocks', { key: m.key, body: { frozen_time: iso(start) } })).body.id as string;
  const early = await s.request('POST', '/api/v2/links', { key: m.key, body: { amount: 900, expires_at: iso(start - MIN), test_clock: clock } });
  t.same([early.status, early.body.error?.code], [422, 'expires_at_invalid'], "expires_at is judged against the clock's time");
  const l = await s.request('POST', '/api/v2/links', { key: m.key, body: { amount: 900, type: 'static', expires_at: iso(start + 60 * MIN), test_clock: clock } });
  t.equal(l.status, 201, l.text);
  t.equal(l.body.created_at, iso(start));
  t.equal(l.body.active, true);
  // The real time is long past expires_at: only the clock keeps the link open.
  t.equal((await s.request('GET', `/api/v2/links/${l.body.id}`, { key: m.key })).body.active, true, 'open on the clock');
  t.same((await s.request('GET', '/api/v2/links', { key: m.key })).body.data.map((x: { active: boolean }) => x.active), [true], 'in the list too');
  const pay = await fetch(`${s.url}/link/${l.body.id}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
  t.ok([302, 303].includes(pay.status), 'paying redirects to the payment');
  const pid = decodeURIComponent(pay.headers.get('location')!.split('/pay/')[1]);
  const row = await s.db.query('SELECT test_clock_id, created_at FROM payments WHERE id = $1', [pid]);
  t.same([row.rows[0].test_clock_id, new Date(row.rows[0].created_at).toISOString()], [clock, iso(start)], "the link's payment is on its clock");
  await s.request('POST', `/api/v2/test_helpers/test_clocks/${clock}/advance`, { key: m.key, body: { frozen_time: iso(start + 61 * MIN) } });
  await ready(m.key, clock);
  t.equal((await s.request('GET', `/api/v2/links/${l.body.id}`, { key: m.key })).body.active, false, 'expired on the clock');
  t.same((await s.request('GET', '/api/v2/links', { key: m.key })).body.data.map((x: { active: boolean }) => x.active), [false], 'the list judges it on the clock too');
  const late = await fetch(`${s.url}/link/${l.body.id}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
  t.match(await late.text(), /data-state="link_expired"/, 'the link page refuses it as expired');
  t.equal((await s.db.query('SELECT status FROM payments WHERE id = $1', [pid])).rows[0].status, 'expired', "and its payment's window ended on the clock too");
});

t.test('advancing until every due delivery has committed: another advance and a delete wait (409); delete detaches', async (t) => {
  // An endpoint that holds its answers until released: the clock's due delivery stays in flight.
  const held: http.ServerResponse[] = [];
  const srv = http.createServer((req, res) => { req.resume(); req.on('end', () => held.push(res)); });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { srv.closeAllConnections(); srv.close(() => r()); }));
  const m = await s.merchant();
  await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'merchant', url: `http://127.0.0.1:${(srv.address() as { port: number }).port}/hooks` });
  const start = Date.parse('2026-07-01T00:00:00.000Z');
  const clock = (await s.request('POST', '/api/v2/test_helpers/test_clocks', { key: m.key, body: { frozen_time: iso(start) } })).body.id as string;
  const p = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 800, test_clock: clock } });
  await s.request('POST', `/api/v2/test_helpers/test_clocks/${clock}/advance`, { key: m.key, body: { frozen_time: iso(start + 31 * MIN) } });
  await until('the payment.expired delivery reaches the endpoint', () => held.length === 1);
  const get = await s.request('GET', `/api/v2/test_helpers/test_clocks/${clock}`, { key: m.key });
  t.equal(get.body.status, 'advancing', 'still advancing while its delivery is in flight');
  const again = await s.request('POST', `/api/v2/test_helpers/test_clocks/${clock}/advance`, { key: m.key, body: { frozen_time: iso(start + 40 * MIN) } });
  t.same([again.status, again.body.error.code], [409, 'test_clock_advancing']);
  const del = await s.request('DELETE', `/api/v2/test_helpers/test_clocks/${clock}`, { key: m.key });
  t.same([del.status, del.body.error.code], [409, 'test_clock_advancing']);
  held.splice(0).forEach((res) => { res.writeHead(200); res.end('ok'); });
  await ready(m.key, clock);
  const gone = await s.request('DELETE', `/api/v2/test_helpers/test_clocks/${clock}`, { key: m.key });
  t.equal(gone.status, 200);
  const row = await s.db.query('SELECT status, test_clock_id FROM payments WHERE id = $1', [p.body.id]);
  t.same(row.rows[0], { status: 'expired', test_clock_id: null }, 'its payment is detached and keeps its state');
});

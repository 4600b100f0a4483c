// Every place the merchant API shows a payment's status says one of its spec's seven ("Payment
// statuses: pending, succeeded, failed, expired, refunded, partially_refunded, review"): the OpenAPI
// document, GET one, the list and its status filter, the return_url and the embedded form's report.
// Gateway-only statuses (cancelled, authorized) are mapped (pending, failed) where a merchant payment
// could hold them, and gateway payments themselves are never shown.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const SPEC = ['pending', 'succeeded', 'failed', 'expired', 'refunded', 'partially_refunded', 'review'];
const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'RUB'] });
await s.admin('PATCH', `/internal/merchants/${m.id}`, { allowed_domains: ['https://shop.example'] });
const get = (id: string) => s.request('GET', `/api/v2/payments/${id}`, { key: m.key });
const list = (q: string) => s.request('GET', `/api/v2/payments?${q}`, { key: m.key });
const constsOf = (schema: { anyOf?: { const: string }[]; enum?: string[] }) => schema.enum ?? schema.anyOf?.map((x) => x.const);

t.test('spec: "Payment statuses: pending, succeeded, failed, expired, refunded, partially_refunded, review": the OpenAPI document says exactly these', async (t) => {
  const doc = (await s.request('GET', '/openapi.json')).body;
  t.same(constsOf(doc.components.schemas.Payment.properties.status), SPEC, 'Payment.status');
  const filter = doc.paths['/payments'].get.parameters.find((p: { name: string }) => p.name === 'status');
  t.same(constsOf(filter.schema), SPEC, 'the list filter on status');
});

t.test('spec: GET /payments "status (any status)": each of the seven filters, a gateway-only status is status_invalid', async (t) => {
  for (const st of SPEC) t.equal((await list(`status=${st}`)).status, 200, st);
  for (const st of ['cancelled', 'authorized', 'open', 'requires_action']) {
    const r = await list(`status=${st}`);
    t.same([r.status, r.body.error?.code, r.body.error?.param], [422, 'status_invalid', 'status'], st);
  }
});

t.test('a merchant payment row holding a gateway-only status is shown inside the seven (GET, list, filter, return_url, embedded form)', async (t) => {
  // No merchant API flow writes these statuses today (a cancel needs a gateway session, a hold a
  // gateway direct payment); the rows are set by hand to prove no answer could carry them if one did.
  const make = async () => (await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 700, return_url: 'https://shop.example/back' } })).body.id as string;
  const held = await make();
  const cancelled = await make();
  await s.db.query("UPDATE payments SET status = 'authorized', version = version + 1 WHERE id = $1", [held]);
  await s.db.query("UPDATE payments SET status = 'cancelled', version = version + 1 WHERE id = $1", [cancelled]);
  t.equal((await get(held)).body.status, 'pending');
  t.equal((await get(cancelled)).body.status, 'failed');
  const all = await list('limit=100');
  t.ok(all.body.data.every((p: { status: string }) => SPEC.includes(p.status)), 'every listed status is the spec\'s');
  t.ok((await list('status=pending&limit=100')).body.data.some((p: { id: string }) => p.id === held), 'status=pending finds the hold');
  t.ok((await list('status=failed&limit=100')).body.data.some((p: { id: string }) => p.id === cancelled), 'status=failed finds the cancelled one');
  const page = await (await fetch(`${s.url}/pay/${cancelled}?origin=${encodeURIComponent('https://shop.example')}`)).text();
  const data = JSON.parse(/<script type="application\/json" id="pe-data">([\s\S]*?)<\/script>/.exec(page)![1]);
  t.equal(data.status, 'failed', 'the embedded form is told failed');
  const unframed = await (await fetch(`${s.url}/pay/${cancelled}`)).text();
  const back = JSON.parse(/<script type="application\/json" id="pe-data">([\s\S]*?)<\/script>/.exec(unframed)![1]).returnTo as string;
  t.equal(new URL(back).searchParams.get('status'), 'failed', 'return_url carries status=failed');
});

t.test('a gateway session, cancelled, is never a merchant API payment', async (t) => {
  const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;
  const cs = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 100, currency: 'RUB', order_id: 'gw-order-1' } });
  t.equal(cs.status, 200, cs.text);
  t.equal((await s.request('POST', `/checkout/${cs.body.id}/cancel`, { body: {} })).status, 200);
  t.equal((await s.db.query('SELECT status FROM payments WHERE id = $1', [cs.body.id])).rows[0].status, 'cancelled');
  t.equal((await get(cs.body.id)).status, 404, 'not by its id');
  t.equal((await get('gw-order-1')).status, 404, 'not by its order_id');
  t.notOk((await list('limit=100')).body.data.some((p: { id: string }) => p.id === cs.body.id), 'not in the list');
});

// The spec's own paths overlap: /v2/payments/checkout/{id} (GET, a checkout session) beside
// /v2/payments/{id}/capture|refund|cancel (POST, a payment), so /v2/payments/checkout/capture
// matches two templates (redocly's no-ambiguous-paths, accepted in .redocly.lint-ignore.yaml). The
// router's precedence, made explicit: a literal segment wins over a parameter, whatever the order the
// routes were registered in, so every /v2/payments/checkout/... path is the checkout session's.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import uWS from 'uWebSockets.js';
import { allRoutes } from '../../src/http/routes/index.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;

t.test('the three overlapping pairs of the spec are the ones the route table holds', async (t) => {
  const paths = new Set(allRoutes.map((r) => r.path));
  for (const p of ['/v2/payments/checkout/:id', '/v2/payments/:id/capture', '/v2/payments/:id/refund', '/v2/payments/:id/cancel']) t.ok(paths.has(p), p);
});

t.test('/v2/payments/checkout/{x} is always the checkout session\'s: POST …/checkout/capture|refund|cancel is 405 (Allow: GET), never a payment named "checkout"', async (t) => {
  // A payment whose order_id is "checkout", and paid: the payment routes would act on it if the parameter won.
  const cs = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 4900, currency: 'RUB', order_id: 'checkout' } });
  t.equal(cs.status, 200, cs.text);
  const session = await s.request('GET', `/v2/payments/checkout/${cs.body.id}`, { key: sk });
  t.same([session.status, session.body.object], [200, 'checkout_session'], 'GET /v2/payments/checkout/{id}: the session');
  for (const action of ['capture', 'refund', 'cancel']) {
    const r = await s.request('POST', `/v2/payments/checkout/${action}`, { key: sk, body: {} });
    t.same([r.status, r.body.error.code, r.headers.get('allow')], [405, 'METHOD_NOT_ALLOWED', 'GET'], `POST /v2/payments/checkout/${action}`);
  }
  const read = await s.request('GET', '/v2/payments/checkout/capture', { key: sk });
  t.same([read.status, read.body.error.code], [404, 'CHECKOUT_SESSION_NOT_FOUND'], 'GET /v2/payments/checkout/capture looks for a session named "capture"');
  const bare = await s.request('GET', '/v2/payments/checkout', { key: sk });
  t.same([bare.status, bare.headers.get('allow')], [405, 'POST'], 'GET /v2/payments/checkout is the create path, not the payment named "checkout"');
  // The payment itself: by its payment_id in the path, or by order_id in the list.
  const byId = await s.request('POST', `/v2/payments/${cs.body.id}/cancel`, { key: sk, body: {} });
  t.equal(byId.body.error.code, 'PAYMENT_NOT_CANCELLABLE', 'POST /v2/payments/{payment_id}/cancel reaches the payment route');
  const listed = await s.request('GET', '/v2/payments?order_id=checkout', { key: sk });
  t.same(listed.body.data.map((p: { id: string }) => p.id), [cs.body.id], 'found by the list filter order_id=checkout');
});

t.test('the precedence is the router\'s, not the registration order: a bare uWS app with the parameter route registered first', async (t) => {
  const app = uWS.App();
  app.any('/v2/payments/:id/capture', (res) => { res.end('payment'); });
  app.any('/v2/payments/checkout/:id', (res) => { res.end('session'); });
  let listen: uWS.us_listen_socket | false = false;
  const port = await new Promise<number>((resolve, reject) => app.listen('127.0.0.1', 0, (sock) => { listen = sock; return sock ? resolve(uWS.us_socket_local_port(sock)) : reject(new Error('listen')); }));
  t.teardown(() => { if (listen) uWS.us_listen_socket_close(listen); });
  t.equal(await (await fetch(`http://127.0.0.1:${port}/v2/payments/checkout/capture`, { method: 'POST' })).text(), 'session');
  t.equal(await (await fetch(`http://127.0.0.1:${port}/v2/payments/cs_1/capture`, { method: 'POST' })).text(), 'payment');
});

// The public checkout endpoints, the SBP lists and /v2/health are in the OpenAPI document under the
// gateway's server, and real answers of the checkout match the response schemas the document
// gives (EffectiveMethodsResponse, SubmitMethodResponse with every next_action shape, the status).
import t from 'tap';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { CheckoutStatusResponse, EffectiveMethodsResponse, SubmitMethodResponse } from '../../src/api/openapi-checkout.js';
import '../../src/api/formats.js';
import { checkoutRoutes } from '../../src/http/routes/checkout.js';
import { sbpMemberRoutes } from '../../src/http/routes/sbp-members.js';
import { card, CARDS, newPayment } from '../helpers/checkout.js';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'RUB'], default_currency: 'RUB' });

t.test('every public checkout route, the SBP lists and health are documented under the gateway server', async (t) => {
  const doc = (await s.request('GET', '/openapi.json')).body;
  const gatewayServer = doc.servers[0].url.replace(/\/api\/v2$/, '');
  for (const route of [...checkoutRoutes, ...sbpMemberRoutes, { method: 'GET', path: '/v2/health' }]) {
    const path = route.path.replace(/:id/g, '{sessionId}').replace(/:(\w+)/g, '{$1}');
    t.ok(doc.paths[path]?.[route.method.toLowerCase()], `${route.method} ${path} documented`);
    t.equal(doc.paths[path]?.servers?.[0]?.url, gatewayServer, `${path} names the gateway server`);
  }
  t.same(doc.components.schemas.EffectiveMethodsResponse.required, ['methods', 'fallback']);
  t.ok(doc.components.schemas.SubmitMethodRequest && doc.components.schemas.PayRequest);
});

t.test('real answers match the documented response schemas', async (t) => {
  const methods = TypeCompiler.Compile(EffectiveMethodsResponse);
  const status = TypeCompiler.Compile(CheckoutStatusResponse);
  const submit = TypeCompiler.Compile(SubmitMethodResponse);
  const check = (c: typeof methods | typeof status | typeof submit, body: unknown, what: string) =>
    t.ok(c.Check(body), `${what}: ${JSON.stringify([...c.Errors(body)].slice(0, 2).map((e) => `${e.path} ${e.message}`))}`);

  const id = await newPayment(s, m.key);
  check(methods, (await s.request('GET', `/checkout/${id}/methods`)).body, 'methods');
  check(status, (await s.request('GET', `/checkout/${id}/status`)).body, 'status, open');
  const qr = await s.request('POST', `/checkout/${id}/submit-method`, { body: { method_code: 'sbp' } });
  t.equal(qr.body.next_action?.type, 'show_qr');
  check(submit, qr.body, 'submit: show_qr');
  check(status, (await s.request('GET', `/checkout/${id}/status`)).body, 'status, requires_action');
  const wallet = await s.request('POST', `/checkout/${id}/submit-method`, { body: { method_code: 'yoomoney' } });
  t.equal(wallet.body.next_action?.type, 'redirect');
  check(submit, wallet.body, 'submit: redirect');
  const threeDs = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.challenge) });
  t.equal(threeDs.body.next_action?.type, 'three_ds_challenge');
  check(submit, threeDs.body, 'pay: three_ds_challenge');
  const paid = await s.request('POST', `/checkout/${await newPayment(s, m.key)}/pay`, { body: card(CARDS.success) });
  t.equal(paid.body.status, 'succeeded');
  check(submit, paid.body, 'pay: succeeded');
  const declined = await s.request('POST', `/checkout/${await newPayment(s, m.key)}/pay`, { body: card(CARDS.declined) });
  t.equal(declined.body.status, 'failed');
  check(submit, declined.body, 'pay: failed with its error');
  check(status, (await s.request('GET', `/checkout/${paid.body.session_id}/status`)).body, 'status, succeeded');
});

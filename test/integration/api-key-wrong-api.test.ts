// A valid key sent to the other API (sk_/rk_/pk_ on /api/v2, svc_ on /v2 or /widget/v1) is told
// where it belongs (401 api_key_wrong_api); a revoked, unknown or reshaped key gets exactly the
// answer any bad key gets, so the hint tells nothing about keys that do not work.
import t from 'tap';
import { ERRORS } from '../../src/errors.js';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant();
const sk = await s.key(m.id, 'secret', 'test');
const rk = await s.key(m.id, 'restricted', 'test');
const pk = await s.key(m.id, 'publishable', 'live');
const revokedSk = await s.key(m.id, 'secret', 'test');
const revokedSvc = await s.key(m.id, 'merchant', 'test');
for (const k of [revokedSk, revokedSvc]) {
  const r = await s.admin('DELETE', `/internal/merchants/${m.id}/api-keys/${k.id}`);
  if (r.status !== 200) throw new Error(`revoke: ${r.text}`);
}

const merchantCall = (key: string) => s.request('GET', '/api/v2/payments', { key });
const gatewayCall = (key: string) => s.request('GET', '/v1/channels', { key });

t.test('a valid gateway key on the merchant API is sent to /v2', async (t) => {
  for (const [name, key, where] of [['sk_test_', sk.key, /secret key of the gateway API: send it to \/v2\//], ['rk_test_', rk.key, /restricted key of the gateway API: send it to \/v2\//],
    ['pk_live_', pk.key, /publishable key of the gateway API: it works on \/widget\/v1\//]] as const) {
    const r = await merchantCall(key);
    t.equal(r.status, 401, name);
    t.match(r.body.error, { type: 'authentication_error', code: 'api_key_wrong_api', param: null }, name);
    t.match(r.body.error.message, where, `${name}: ${r.body.error.message}`);
  }
});

t.test('a valid merchant key on the gateway API and the widget is sent to /api/v2', async (t) => {
  for (const r of [await gatewayCall(m.key), await gatewayCall(m.liveKey), await s.request('GET', '/widget/v1/methods', { key: m.key })]) {
    t.equal(r.status, 401);
    t.equal(r.body.error.code, 'API_KEY_WRONG_API');
    t.match(r.body.error.message, /key of the merchant API: send it to \/api\/v2\//);
  }
  const ru = await s.request('GET', '/v1/channels', { key: m.key, headers: { 'accept-language': 'ru' } });
  t.match(ru.body.error.message, /другому API/, 'in the caller\'s language');
});

t.test('revoked, unknown and reshaped keys get the plain answer of any bad key', async (t) => {
  const plainMerchant = (await merchantCall('svc_test_00000000000000000000000000000000')).body.error;
  const plainGateway = (await gatewayCall('sk_test_00000000000000000000000000000000')).body.error;
  t.match(plainMerchant, { code: 'api_key_invalid', message: ERRORS.api_key_invalid.en });
  t.match(plainGateway, { code: 'API_KEY_INVALID', message: ERRORS.api_key_invalid.en });
  const onMerchant: [string, string][] = [
    ['revoked sk_ key', revokedSk.key],
    ['unknown sk_ key', 'sk_test_00000000000000000000000000000000'],
    ['unknown pk_ key', 'pk_live_00000000000000000000000000000000'],
    ['a valid sk_ key with its mode changed', `sk_live_${sk.key.slice('sk_test_'.length)}`],
    ['a valid sk_ key with its kind changed', `rk_test_${sk.key.slice('sk_test_'.length)}`],
  ];
  for (const [name, key] of onMerchant) {
    const r = await merchantCall(key);
    t.equal(r.status, 401, name);
    t.same(r.body.error, plainMerchant, name);
  }
  const onGateway: [string, string][] = [
    ['revoked svc_ key', revokedSvc.key],
    ['unknown svc_ key', 'svc_live_00000000000000000000000000000000'],
    ['a valid svc_ key with its mode changed', `svc_live_${m.key.slice('svc_test_'.length)}`],
  ];
  for (const [name, key] of onGateway) {
    const r = await gatewayCall(key);
    t.equal(r.status, 401, name);
    t.same(r.body.error, plainGateway, name);
  }
});

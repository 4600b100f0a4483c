// Who may see what: no/invalid/revoked keys, disabled API, test vs live, merchant A vs B.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const a = await s.merchant();
const b = await s.merchant();

const create = async (key: string, order = 'o') => {
  const r = await s.request('POST', '/api/v2/payments', { key, body: { amount: 1000, order_id: order } });
  if (r.status !== 201) throw new Error(r.text);
  return r.body.id as string;
};

t.test('401 for no key, a malformed header, an unknown key and a key of another API', async (t) => {
  const cases: [string, Record<string, string>, string][] = [
    ['no header', {}, 'authentication_required'],
    ['basic scheme', { authorization: `Basic ${a.key}` }, 'authentication_required'],
    ['unknown key', { authorization: 'Bearer svc_test_doesnotexist00000000000000000000' }, 'api_key_invalid'],
    ['garbage', { authorization: 'Bearer x' }, 'api_key_invalid'],
  ];
  const sk = await s.key(a.id, 'secret', 'test');
  cases.push(['gateway secret key on the merchant API', { authorization: `Bearer ${sk.key}` }, 'api_key_wrong_api']);
  for (const [name, headers, code] of cases) {
    for (const [method, path] of [['GET', '/api/v2/ping'], ['GET', '/api/v2/payments'], ['POST', '/api/v2/payments']]) {
      const r = await s.request(method, path, { headers, body: method === 'POST' ? { amount: 1 } : undefined });
      t.equal(r.status, 401, `${name} ${method} ${path}`);
      t.equal(r.body.error.type, 'authentication_error');
      t.equal(r.body.error.code, code, name);
    }
  }
});

t.test('ping answers for a valid key', async (t) => {
  const r = await s.request('GET', '/api/v2/ping', { key: a.key });
  t.equal(r.status, 200);
  t.same({ ok: r.body.ok, livemode: r.body.livemode, merchant_id: r.body.merchant_id }, { ok: true, livemode: false, merchant_id: a.id });
  t.ok(r.headers.get('x-ratelimit-limit'));
});

t.test('a revoked key gets 401 at once', async (t) => {
  const k = await s.key(a.id);
  t.equal((await s.request('GET', '/api/v2/ping', { key: k.key })).status, 200);
  const del = await s.admin('DELETE', `/internal/merchants/${a.id}/api-keys/${k.id}`);
  t.equal(del.status, 200);
  const r = await s.request('GET', '/api/v2/ping', { key: k.key });
  t.equal(r.status, 401);
  t.equal(r.body.error.code, 'api_key_invalid');
});

t.test('API disabled for the merchant is 403, and enabling it again restores access', async (t) => {
  const c = await s.merchant();
  t.equal((await s.admin('PATCH', `/internal/merchants/${c.id}`, { api_enabled: false })).status, 200);
  const r = await s.request('POST', '/api/v2/payments', { key: c.key, body: { amount: 100 } });
  t.equal(r.status, 403);
  t.equal(r.body.error.code, 'api_disabled');
  t.equal(r.body.error.type, 'authentication_error');
  await s.admin('PATCH', `/internal/merchants/${c.id}`, { api_enabled: true });
  t.equal((await s.request('GET', '/api/v2/ping', { key: c.key })).status, 200);
});

t.test('test and live are isolated; merchants are isolated', async (t) => {
  const testId = await create(a.key, 'shared-order');
  const liveId = await create(a.liveKey, 'shared-order');
  const bId = await create(b.key, 'b-order');
  const get = (key: string, id: string) => s.request('GET', `/api/v2/payments/${id}`, { key });
  t.equal((await get(a.key, testId)).status, 200);
  t.equal((await get(a.liveKey, liveId)).body.livemode, true);
  for (const [key, id, why] of [[a.key, liveId, 'test key, live payment'], [a.liveKey, testId, 'live key, test payment'],
    [a.key, bId, 'A reads B'], [b.key, testId, 'B reads A'], [b.key, 'shared-order', 'B reads A by order id']] as const) {
    const r = await get(key, id);
    t.equal(r.status, 404, why);
    t.equal(r.body.error.code, 'payment_not_found');
  }
  t.equal((await get(a.key, 'shared-order')).body.id, testId, 'order id resolves within the mode');
  t.equal((await get(a.liveKey, 'shared-order')).body.id, liveId);
  const listA = await s.request('GET', '/api/v2/payments', { key: a.key });
  t.notOk(listA.body.data.some((p: { id: string }) => p.id === liveId || p.id === bId), 'list shows only own mode and merchant');
});

t.test('operator endpoints need the admin token', async (t) => {
  for (const [method, path] of [['POST', '/internal/merchants'], ['GET', `/internal/merchants/${a.id}`], ['PATCH', `/internal/merchants/${a.id}`],
    ['POST', `/internal/merchants/${a.id}/api-keys`], ['DELETE', `/internal/merchants/${a.id}/api-keys/x`]]) {
    const none = await s.request(method, path, { body: method === 'GET' || method === 'DELETE' ? undefined : {} });
    t.equal(none.status, 401, `${method} ${path} without token`);
    t.equal(none.body.error.code, 'admin_unauthorized');
    const wrong = await s.request(method, path, { key: a.key, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
    t.equal(wrong.status, 401, `${method} ${path} with a merchant key`);
  }
});

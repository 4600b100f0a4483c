// The widget's endpoints over HTTP: POST /widget/v1/session with a publishable key, GET
// /widget/v1/methods, the script, and CORS on the widget endpoints only: every preflight granted,
// each request served only for the key's merchant's allowed origins, its refusal readable.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['RUB', 'USD'], default_currency: 'RUB' });
const other = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const SHOP = 'https://shop.example';
const ELSEWHERE = 'https://evil.example';
for (const [id, list] of [[m.id, [SHOP]], [other.id, ['https://other.example']]] as const) {
  const r = await s.admin('PATCH', `/internal/merchants/${id}`, { allowed_domains: list });
  if (r.status !== 200) throw new Error(`allowlist: ${r.text}`);
}
const pk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'publishable', mode: 'test' })).body.key as string;
const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;

t.test('POST /widget/v1/session -> 200 {session_id, checkout_url, expires_at}; a gateway session', async (t) => {
  const r = await s.request('POST', '/widget/v1/session', { key: pk, body: { amount: 4900, currency: 'RUB', initial_method: 'sbp', language: 'az', order_id: 'w-1', metadata: { a: 'b' } } });
  t.equal(r.status, 200, r.text);
  t.match(r.body, { session_id: /^cs_[0-9A-Za-z]{24}$/, checkout_url: /\/pay\/cs_/, expires_at: /Z$/ });
  const got = await s.request('GET', `/v2/payments/checkout/${r.body.session_id}`, { key: sk });
  t.match(got.body, { status: 'open', language: 'az', order_id: 'w-1', amount: 4900 });
  const bad = await s.request('POST', '/widget/v1/session', { key: pk, body: { amount: 4900, currency: 'RUB', webhook_url: 'https://x.example/h' } });
  t.equal(bad.status, 400, 'the widget takes no webhook_url');
  t.equal(bad.body.error.param, 'webhook_url');
  const pkOnCheckout = await s.request('POST', '/v2/payments/checkout', { key: pk, body: { amount: 4900, currency: 'RUB' } });
  t.equal(pkOnCheckout.status, 403);
  t.equal(pkOnCheckout.body.error.code, 'PUBLISHABLE_KEY_NOT_ALLOWED');
  t.equal((await s.request('POST', '/widget/v1/session', { body: { amount: 1, currency: 'RUB' } })).status, 401);
});

t.test('GET /widget/v1/methods: the merchant-wide effective list', async (t) => {
  const r = await s.request('GET', '/widget/v1/methods', { key: pk });
  t.equal(r.status, 200);
  t.equal(r.body.fallback, false);
  t.same(r.body.methods.map((x: { method_code: string }) => x.method_code), ['card', 'sbp', 'sberpay', 'tpay', 'yoomoney', 'recurrent', 'apple_pay', 'google_pay']);
  t.same(r.body.methods.find((x: { method_code: string }) => x.method_code === 'sbp').allowed_currencies, ['RUB']);
  t.equal((await s.admin('PUT', `/internal/merchants/${m.id}/method-settings/sbp`, { enabled: false })).status, 200);
  const after = await s.request('GET', '/widget/v1/methods', { key: pk });
  t.notOk(after.body.methods.some((x: { method_code: string }) => x.method_code === 'sbp'), 'a method the merchant switched off is gone');
});

t.test('GET /widget/v1/sbp-members: {data, count} with Cache-Control public, max-age=300', async (t) => {
  const r = await s.request('GET', '/widget/v1/sbp-members', { key: pk, headers: { origin: SHOP } });
  t.equal(r.status, 200, r.text);
  t.equal(r.headers.get('cache-control'), 'public, max-age=300');
  t.equal(r.headers.get('access-control-allow-origin'), SHOP);
  t.ok(r.body.count > 0 && r.body.count === r.body.data.length);
  t.match(r.body.data[0], { member_id: /^\d{12}$/ });
  t.equal((await s.request('GET', '/widget/v1/sbp-members')).status, 401, 'needs a key');
});

t.test('CORS preflight: every origin gets the grant (the request is checked), none without an Origin; only on widget paths', async (t) => {
  const pre = (path: string, origin: string) => fetch(`${s.url}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
  const ok = await pre('/widget/v1/session', SHOP);
  t.equal(ok.status, 204);
  t.equal(ok.headers.get('access-control-allow-origin'), SHOP);
  t.match(ok.headers.get('access-control-allow-methods'), /POST/);
  t.match(ok.headers.get('access-control-allow-headers'), /authorization/);
  t.equal(ok.headers.get('vary'), 'Origin');
  const elsewhere = await pre('/widget/v1/session', ELSEWHERE);
  t.equal(elsewhere.status, 204, 'an origin no merchant lists gets the grant too, so it can read the refusal of its request');
  t.equal(elsewhere.headers.get('access-control-allow-origin'), ELSEWHERE);
  const bare = await fetch(`${s.url}/widget/v1/session`, { method: 'OPTIONS', headers: { 'access-control-request-method': 'POST' } });
  t.equal(bare.status, 403);
  t.equal(bare.headers.get('access-control-allow-origin'), null);
  const envelope = await bare.json();
  t.equal(envelope.error.code, 'ORIGIN_NOT_ALLOWED', 'the refused preflight carries the envelope');
  t.match(envelope.error.message, /Origin header/);
  const methods = await pre('/widget/v1/methods', SHOP);
  t.equal(methods.status, 204);
  t.match(methods.headers.get('access-control-allow-methods'), /GET/);
  for (const path of ['/v2/payments/checkout', '/v1/channels', '/api/v2/payments']) {
    const r = await pre(path, SHOP);
    t.equal(r.headers.get('access-control-allow-origin'), null, `no CORS on ${path}`);
    t.not(r.status, 204, path);
  }
});

t.test('CORS on the request: the key\'s merchant must list the origin; the refusal is readable and logged with why', async (t) => {
  const warned: string[] = [];
  const log = s.srv.services.log;
  const warn = log.warn.bind(log);
  log.warn = ((o: unknown, msg?: string) => { warned.push(String(msg)); return warn(o as object, msg); }) as typeof log.warn;
  t.teardown(() => { log.warn = warn; });
  const body = { amount: 4900, currency: 'RUB' };
  const listed = await s.request('POST', '/widget/v1/session', { key: pk, body, headers: { origin: SHOP } });
  t.equal(listed.status, 200);
  t.equal(listed.headers.get('access-control-allow-origin'), SHOP);
  t.match(listed.headers.get('access-control-expose-headers'), /x-request-id/);
  const before = (await s.db.query('SELECT count(*)::int AS n FROM payments WHERE merchant_id = $1', [m.id])).rows[0].n;
  const unlisted = await s.request('POST', '/widget/v1/session', { key: pk, body, headers: { origin: ELSEWHERE } });
  t.equal(unlisted.status, 403);
  t.equal(unlisted.body.error.code, 'ORIGIN_NOT_ALLOWED');
  t.match(unlisted.body.error.message, ELSEWHERE, 'the message names the origin...');
  t.match(unlisted.body.error.message, /allowed_domains/, '...and the list it is missing from');
  t.equal(unlisted.headers.get('access-control-allow-origin'), ELSEWHERE, 'readable by the refused page');
  t.ok(warned.some((w) => w.includes(ELSEWHERE) && w.includes('allowed_domains') && w.includes(m.id)), `the log says why: ${warned.join(' | ')}`);
  const badKey = await s.request('POST', '/widget/v1/session', { key: 'pk_test_nope', body, headers: { origin: ELSEWHERE } });
  t.equal(badKey.status, 401);
  t.equal(badKey.headers.get('access-control-allow-origin'), ELSEWHERE, 'a wrong key is readable too');
  const otherMerchants = await s.request('GET', '/widget/v1/methods', { key: pk, headers: { origin: 'https://other.example' } });
  t.equal(otherMerchants.status, 403, 'an origin another merchant lists is not this merchant\'s');
  t.equal((await s.db.query('SELECT count(*)::int AS n FROM payments WHERE merchant_id = $1', [m.id])).rows[0].n, before, 'nothing created');
  const server = await s.request('POST', '/widget/v1/session', { key: pk, body });
  t.equal(server.status, 200, 'no Origin (a server): allowed');
  t.equal(server.headers.get('access-control-allow-origin'), null);
  const gateway = await s.request('GET', '/v1/channels', { key: sk, headers: { origin: SHOP } });
  t.equal(gateway.headers.get('access-control-allow-origin'), null, 'no CORS outside the widget');
});

t.test('the script: neutral name, JavaScript, cacheable, with the service origin', async (t) => {
  const r = await fetch(`${s.url}/widget/v1/widget.js`);
  t.equal(r.status, 200);
  t.match(r.headers.get('content-type'), /text\/javascript/);
  t.equal(r.headers.get('cache-control'), 'public, max-age=300');
  const text = await r.text();
  t.match(text, /window\.PaymentWidget=PaymentWidget/);
  t.match(text, /\/widget\/v1\/session/);
});

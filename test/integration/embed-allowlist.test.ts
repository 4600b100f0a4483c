// The embedded form over HTTP: the operator's framing allowlist (PATCH /internal/merchants/{id}
// allowed_domains) refuses anything but plain origins with allowed_domain_invalid; the hosted page
// answers frame-ancestors 'none' (and X-Frame-Options DENY) for an empty list and exactly the listed
// origins otherwise; ?origin= reaches the page's data only when it is on the list; the script is
// served as JavaScript, cacheable; GET /checkout/{id}/embed-check tells any page whether its origin
// may frame the payment, and why not; /demo exists only with the demo merchant.
import t from 'tap';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { EmbedCheckResponse } from '../../src/api/openapi-checkout.js';
import { startTestServer } from '../helpers/server.js';
import { CARDS, card, newPayment } from '../helpers/checkout.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'RUB'] });
const patch = (body: unknown, id = m.id) => s.admin('PATCH', `/internal/merchants/${id}`, body);
const page = async (path: string) => {
  const r = await fetch(s.url + path);
  const html = await r.text();
  const data = JSON.parse(/<script type="application\/json" id="pe-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? 'null');
  return { status: r.status, headers: r.headers, html, data };
};
const ancestors = (h: Headers) => /frame-ancestors ([^;]+)/.exec(h.get('content-security-policy') ?? '')?.[1];

t.test('bad origins are refused with the envelope and allowed_domain_invalid', async (t) => {
  const bad: [unknown, string][] = [
    [['*'], 'allowed_domains.0'],
    [['https://*.shop.example'], 'allowed_domains.0'],
    [['https:'], 'allowed_domains.0'],
    [['https://'], 'allowed_domains.0'],
    [['shop.example'], 'allowed_domains.0'],
    [['https://ok.example', 'https://shop.example/path'], 'allowed_domains.1'],
    [['https://shop.example/'], 'allowed_domains.0'],
    [['https://shop.example?x=1'], 'allowed_domains.0'],
    [['https://user@shop.example'], 'allowed_domains.0'],
    [['http://shop.example'], 'allowed_domains.0'],
    [['ftp://shop.example'], 'allowed_domains.0'],
    [['https://shop.example:99999'], 'allowed_domains.0'],
    [["https://shop.example 'unsafe-inline'"], 'allowed_domains.0'],
    [['https://shop.example;script-src *'], 'allowed_domains.0'],
    [['data:'], 'allowed_domains.0'],
    [['https://[::1]:8443'], 'allowed_domains.0'],
    [[42], 'allowed_domains.0'],
    ['https://shop.example', 'allowed_domains'],
    [Array.from({ length: 21 }, (_, i) => `https://s${i}.example`), 'allowed_domains'],
  ];
  for (const [value, param] of bad) {
    const r = await patch({ allowed_domains: value });
    t.equal(r.status, 422, `${JSON.stringify(value).slice(0, 60)} refused`);
    t.equal(r.body?.error?.code, 'allowed_domain_invalid', r.text);
    t.equal(r.body?.error?.param, param);
    t.ok(r.body?.error?.message, 'a message');
  }
  const got = await s.admin('GET', `/internal/merchants/${m.id}`);
  t.same(got.body.allowed_domains, [], 'nothing was stored');
});

t.test('good origins are stored canonical and deduplicated; [] clears', async (t) => {
  const r = await patch({ allowed_domains: ['https://Shop.Example', 'https://shop.example:443', 'https://pay.shop.example:8443', 'http://127.0.0.1:5173', 'http://localhost:3000'] });
  t.equal(r.status, 200, r.text);
  t.same(r.body.allowed_domains, ['https://shop.example', 'https://pay.shop.example:8443', 'http://127.0.0.1:5173', 'http://localhost:3000']);
  t.same((await s.admin('GET', `/internal/merchants/${m.id}`)).body.allowed_domains, r.body.allowed_domains);
  const name = await patch({ name: 'Renamed' });
  t.same(name.body.allowed_domains, r.body.allowed_domains, 'a patch without the field keeps the list');
  t.same((await patch({ allowed_domains: [] })).body.allowed_domains, []);
  t.equal((await patch({ allowed_domains: ['https://x.example'] }, 'mer_unknown')).status, 404);
});

t.test('the hosted page: frame-ancestors none for an empty list, exactly the list otherwise', async (t) => {
  await patch({ allowed_domains: [] });
  const id = await newPayment(s, m.key);
  const closed = await page(`/pay/${id}`);
  t.equal(ancestors(closed.headers), "'none'");
  t.equal(closed.headers.get('x-frame-options'), 'DENY');
  t.match(closed.headers.get('content-security-policy'), /script-src 'nonce-[^']+';/, 'the nonce CSP is kept');

  await patch({ allowed_domains: ['https://shop.example', 'http://127.0.0.1:5173'] });
  const open = await page(`/pay/${id}`);
  t.equal(ancestors(open.headers), 'https://shop.example http://127.0.0.1:5173');
  t.equal(open.headers.get('x-frame-options'), null, 'no X-Frame-Options DENY when framing is allowed');
  t.match(open.headers.get('content-security-policy'), /default-src 'none'; script-src 'nonce-[^']+'; style-src 'nonce-[^']+'/);
  t.equal(open.data.parentOrigin, null, 'no ?origin: the page reports to nobody');

  const asked = await page(`/pay/${id}?origin=${encodeURIComponent('http://127.0.0.1:5173')}`);
  t.equal(asked.data.parentOrigin, 'http://127.0.0.1:5173', 'an allowlisted origin is the parent');
  t.match(asked.html, /\?lang=ru&amp;origin=http%3A%2F%2F127\.0\.0\.1%3A5173/, 'the language links keep it');
  const evil = await page(`/pay/${id}?origin=${encodeURIComponent('https://evil.example')}`);
  t.equal(evil.data.parentOrigin, null, 'an origin off the list is ignored');
  t.equal(ancestors(evil.headers), 'https://shop.example http://127.0.0.1:5173');

  const other = await s.merchant();
  const otherId = await newPayment(s, other.key, { currency: 'AZN' });
  const foreign = await page(`/pay/${otherId}?origin=${encodeURIComponent('https://shop.example')}`);
  t.equal(ancestors(foreign.headers), "'none'", "another merchant's page keeps its own (empty) list");
  t.equal(foreign.data.parentOrigin, null);
  t.equal(ancestors((await page('/pay/pay_doesnotexist')).headers), "'none'", 'a missing payment is not framable');
});

t.test('the sandbox ACS: framed under the same list; the parent returns only when listed', async (t) => {
  await patch({ allowed_domains: ['https://shop.example'] });
  const challenge = async () => {
    const id = await newPayment(s, m.key);
    const r = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.challenge) });
    const a = r.body.next_action as { acs_url: string; creq: string };
    return { id, url: `${a.acs_url}?creq=${encodeURIComponent(a.creq)}`, ref: JSON.parse(Buffer.from(a.creq, 'base64url').toString()).acsTransID as string };
  };
  const answer = (id: string, form: Record<string, string>) => fetch(`${s.url}/sandbox/3ds/${id}`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString(),
  });

  const c1 = await challenge();
  const listed = await fetch(`${c1.url}&origin=${encodeURIComponent('https://shop.example')}`);
  t.equal(ancestors(listed.headers), 'https://shop.example');
  t.match(await listed.text(), '<input type="hidden" name="origin" value="https://shop.example">');
  const back = await answer(c1.id, { ref: c1.ref, answer: 'Y', origin: 'https://shop.example' });
  t.equal(back.status, 302);
  t.equal(back.headers.get('location'), `/pay/${c1.id}?lang=en&origin=https%3A%2F%2Fshop.example`);

  const c2 = await challenge();
  const unlisted = await fetch(`${c2.url}&origin=${encodeURIComponent('https://evil.example')}`);
  t.notMatch(await unlisted.text(), 'name="origin"', 'an unlisted parent is not carried');
  const back2 = await answer(c2.id, { ref: c2.ref, answer: 'Y', origin: 'https://evil.example' });
  t.equal(back2.headers.get('location'), `/pay/${c2.id}?lang=en`, 'nor returned to');
  await patch({ allowed_domains: [] });
  const c3 = await challenge();
  t.equal(ancestors((await fetch(c3.url)).headers), "'none'", 'an empty list: the ACS is not framable');
});

t.test('GET /checkout/{id}/embed-check: may this origin frame the payment? readable from anywhere, refusals logged with why', async (t) => {
  await patch({ allowed_domains: ['https://shop.example'] });
  const id = await newPayment(s, m.key);
  const warned: string[] = [];
  const log = s.srv.services.log;
  const warn = log.warn.bind(log);
  log.warn = ((o: unknown, msg?: string) => { warned.push(String(msg)); return warn(o as object, msg); }) as typeof log.warn;
  t.teardown(() => { log.warn = warn; });
  const check = (origin: string | null, query = '') => fetch(`${s.url}/checkout/${id}/embed-check${query}`, { headers: origin ? { origin } : {} });

  const ok = await check('https://shop.example');
  t.equal(ok.status, 200);
  t.equal(ok.headers.get('access-control-allow-origin'), '*');
  const okBody = await ok.json();
  t.match(okBody, { origin: 'https://shop.example', allowed: true });
  t.ok(TypeCompiler.Compile(EmbedCheckResponse).Check(okBody), 'the answer matches the OpenAPI schema');
  const no = await check('https://elsewhere.example');
  t.equal(no.status, 403);
  t.equal(no.headers.get('access-control-allow-origin'), '*', 'the refusal is readable by the page');
  const body = await no.json();
  t.match(body.error, { code: 'ORIGIN_NOT_ALLOWED', param: 'Origin' });
  t.match(body.error.message, 'https://elsewhere.example');
  t.match(body.error.message, 'allowed_domains');
  t.ok(warned.some((w) => w.includes('https://elsewhere.example') && w.includes(m.id) && w.includes('allowed_domains')), `logged with why: ${warned.join(' | ')}`);
  t.equal((await check('https://elsewhere.example', '?origin=https%3A%2F%2Fshop.example')).status, 403, 'the browser\'s Origin wins over ?origin=');
  t.equal((await check(null, '?origin=https%3A%2F%2Fshop.example')).status, 200, 'without an Origin (same-origin GET), ?origin= is used');
  const none = await check(null);
  t.equal(none.status, 400, 'neither: the gateway\'s validation error');
  t.match((await none.json()).error, { code: 'VALIDATION_ERROR', reason: 'PARAMETER_MISSING', param: 'origin' });
  const unknown = await fetch(`${s.url}/checkout/EXZ-20260101-AAAAAAAAAA/embed-check`, { headers: { origin: 'https://shop.example' } });
  t.equal(unknown.status, 404);
  t.equal(unknown.headers.get('access-control-allow-origin'), '*');

  // The frame's own request from an unlisted parent is logged too (the browser will show nothing).
  warned.length = 0;
  await page(`/pay/${id}?origin=${encodeURIComponent('https://elsewhere.example')}`);
  t.ok(warned.some((w) => w.includes('https://elsewhere.example') && w.includes('frame-ancestors')), 'the hosted page\'s request says why too');
});

t.test('the script: JavaScript, cacheable, bound to the service origin', async (t) => {
  const r = await fetch(`${s.url}/js/v1/checkout.js`);
  t.equal(r.status, 200);
  t.equal(r.headers.get('content-type'), 'text/javascript; charset=utf-8');
  t.equal(r.headers.get('cache-control'), 'public, max-age=300');
  t.equal(r.headers.get('x-content-type-options'), 'nosniff');
  const js = await r.text();
  t.match(js, `var SERVICE=${JSON.stringify(new URL(s.srv.services.config.publicBaseUrl).origin)};`);
  t.match(js, /window\.PaymentCheckout=/);
  t.notMatch(js, /postMessage\([^)]*'\*'/, 'never posts to *');
  t.equal((await fetch(`${s.url}/js/v1/checkout.js`, { method: 'POST' })).status, 405);
});

t.test('/demo is not served without the demo merchant', async (t) => {
  const r = await s.request('GET', '/demo');
  t.equal(r.status, 404);
  t.equal(r.body?.error?.code, 'ROUTE_NOT_FOUND', 'the gateway envelope');
  t.equal((await s.request('POST', '/demo/payments')).status, 404);
});

t.test('/demo with the demo merchant: the page, a payment, and its own origin on the allowlist', async (t) => {
  const d = await startTestServer(t, { DEMO_MERCHANT: '1' });
  const origin = new URL(d.srv.services.config.publicBaseUrl).origin;
  const r = await fetch(`${d.url}/demo`);
  t.equal(r.status, 200);
  t.match(r.headers.get('content-type'), /text\/html/);
  t.match(r.headers.get('content-security-policy'), new RegExp(`frame-src ${origin}`));
  t.match(await r.text(), new RegExp(`<script src="${origin}/js/v1/checkout.js">`));
  const p = await d.request('POST', '/demo/payments');
  t.equal(p.status, 201, p.text);
  t.equal(p.body.checkout_url, `${origin}/pay/${p.body.id}`);
  t.equal(p.body.livemode, false);
  const pay = await fetch(`${d.url}/pay/${p.body.id}`);
  t.equal(ancestors(pay.headers), origin, 'the demo page may frame the demo merchant\'s checkout');
});

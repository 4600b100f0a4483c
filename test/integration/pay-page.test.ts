// GET /pay/{id}: security headers with a fresh nonce on every HTML answer, no inline code without
// it, the weight budget, the languages, the methods in display order, and the outcome screens
// with the return link.
import t from 'tap';
import { gzipSync } from 'node:zlib';
import { startTestServer } from '../helpers/server.js';
import { card, CARDS, newPayment } from '../helpers/checkout.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'RUB'] });
const get = async (path: string, headers: Record<string, string> = {}) => {
  const r = await fetch(s.url + path, { headers, redirect: 'manual' });
  return { status: r.status, headers: r.headers, html: await r.text() };
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Assert = { ok(...a: any[]): unknown; match(...a: any[]): unknown; notMatch(...a: any[]): unknown; equal(...a: any[]): unknown };

function checkHeaders(t: Assert, h: Headers, html: string) {
  const csp = h.get('content-security-policy') ?? '';
  const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
  t.ok(nonce, 'a script nonce');
  t.match(csp, /default-src 'none'/);
  t.match(csp, /frame-ancestors 'none'/);
  t.match(csp, new RegExp(`style-src 'nonce-${nonce!.replace(/[+/=]/g, (c) => `\\${c}`)}'`));
  t.notMatch(csp, /unsafe-inline|unsafe-eval|https?:/, 'no unsafe sources, no third-party origins');
  t.equal(h.get('x-content-type-options'), 'nosniff');
  t.equal(h.get('referrer-policy'), 'no-referrer');
  t.equal(h.get('cache-control'), 'no-store');
  for (const tag of html.match(/<script\b[^>]*>/g) ?? []) {
    t.ok(tag.includes(`nonce="${nonce}"`) || tag.includes('type="application/json"'), `script tag carries the nonce: ${tag}`);
  }
  for (const tag of html.match(/<style\b[^>]*>/g) ?? []) t.ok(tag.includes(`nonce="${nonce}"`), 'style carries the nonce');
  t.notMatch(html, /\son[a-z]+=/i, 'no inline event handlers');
  t.notMatch(html, /\sstyle=/i, 'no style attributes');
  t.notMatch(html, /\ssrc="https?:|<link[^>]+href="https?:/, 'no external resources (only links the customer follows)');
  return nonce!;
}

t.test('headers, nonce per answer, weight under 50 KB gzip', async (t) => {
  const id = await newPayment(s, m.key, { description: 'Green tea <b>', order_id: 'A-7' });
  const a = await get(`/pay/${id}`);
  t.equal(a.status, 200);
  t.match(a.headers.get('content-type'), /text\/html/);
  const n1 = checkHeaders(t, a.headers, a.html);
  const b = await get(`/pay/${id}`);
  t.not(checkHeaders(t, b.headers, b.html), n1, 'a fresh nonce each time');
  t.match(a.html, /Green tea &lt;b&gt;/, 'escaped');
  t.match(a.html, /₽49\.00/);
  const gz = gzipSync(a.html).length;
  t.ok(gz < 50 * 1024, `gzip ${gz} bytes`);
  t.match(a.html, /<html lang="en">/);
  t.match(a.html, /role="tablist"/);
  const tabs = [...a.html.matchAll(/id="tab-([a-z_]+)"/g)].map((x) => x[1]);
  t.same(tabs, ['card', 'sbp', 'sberpay', 'tpay', 'yoomoney', 'apple_pay', 'google_pay'], 'tabs in display order (no saved-card tab: no saved card)');
  t.match(a.html, /<label for="cc-number">Card number<\/label>/, 'labelled inputs');
  const qr = await s.request('POST', `/checkout/${id}/submit-method`, { body: { method_code: 'sbp' } });
  t.equal(qr.status, 200);
  const withQr = await get(`/pay/${id}`);
  t.ok(gzipSync(withQr.html).length < 50 * 1024, 'with a QR too');
});

t.test('languages: payment locale, ?lang= switch, Accept-Language', async (t) => {
  const ru = await newPayment(s, m.key, { locale: 'ru' });
  const r = await get(`/pay/${ru}`);
  t.match(r.html, /<html lang="ru">/);
  t.match(r.html, /Номер карты/);
  t.match(r.html, /Оплатить 49,00\s₽/);
  const az = await newPayment(s, m.key, { locale: 'az' });
  t.match((await get(`/pay/${az}`)).html, /Kart nömrəsi/);
  const sw = await get(`/pay/${ru}?lang=az`);
  t.match(sw.html, /<html lang="az">/);
  t.match(sw.html, /href="\/pay\/[^"]+\?lang=en"/, 'links to the other languages');
  const plain = await newPayment(s, m.key);
  t.match((await get(`/pay/${plain}`, { 'accept-language': 'ru' })).html, /<html lang="ru">/);
  t.match((await get(`/pay/${plain}?lang=de`)).html, /<html lang="en">/);
});

t.test('only the method the payment was created with; card-only for AZN wallets excluded', async (t) => {
  const id = await newPayment(s, m.key, { method: 'sbp' });
  const tabs = [...(await get(`/pay/${id}`)).html.matchAll(/id="tab-([a-z_]+)"/g)].map((x) => x[1]);
  t.same(tabs, ['sbp']);
  t.match((await get(`/pay/${id}`)).html, /data-member="100000000111"/, 'the SBP bank list');
});

t.test('outcome screens: success with return link, decline with its message, expiry', async (t) => {
  const ok = await newPayment(s, m.key, { return_url: 'https://shop.example/back?order=7' });
  await s.request('POST', `/checkout/${ok}/pay`, { body: card(CARDS.success) });
  const a = await get(`/pay/${ok}`);
  checkHeaders(t, a.headers, a.html);
  t.match(a.html, /data-status="succeeded"/);
  t.match(a.html, /Payment successful/);
  t.match(a.html, new RegExp(`href="https://shop\\.example/back\\?order=7&amp;payment_id=${ok}&amp;status=succeeded"`));
  t.match(a.html, /"returnTo":"https:\/\/shop\.example\/back\?order=7&payment_id=/);
  const bad = await newPayment(s, m.key, { locale: 'ru' });
  await s.request('POST', `/checkout/${bad}/pay`, { body: card(CARDS.insufficient) });
  const b = await get(`/pay/${bad}`);
  t.match(b.html, /Платёж отклонён/);
  t.match(b.html, /На карте недостаточно средств/);
  t.notMatch(b.html, /id="return"/, 'no return link without return_url');
  const ex = await newPayment(s, m.key, { locale: 'az' });
  await s.request('POST', `/api/v2/test/payments/${ex}/complete`, { key: m.key, body: { outcome: 'expired' } });
  t.match((await get(`/pay/${ex}`)).html, /Ödəniş vaxtı bitdi/);
});

t.test('404 page and sandbox pages carry the same headers', async (t) => {
  const nf = await get('/pay/EXZ-20261121-0000000000');
  t.equal(nf.status, 404);
  checkHeaders(t, nf.headers, nf.html);
  const id = await newPayment(s, m.key);
  const r = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.challenge) });
  const acs = await get(`/sandbox/3ds/${id}?creq=${r.body.next_action.creq}`);
  t.equal(acs.status, 200);
  checkHeaders(t, acs.headers, acs.html);
  const sbp = await newPayment(s, m.key);
  const q = await s.request('POST', `/checkout/${sbp}/submit-method`, { body: { method_code: 'sbp' } });
  const w = await newPayment(s, m.key);
  const r2 = await s.request('POST', `/checkout/${w}/submit-method`, { body: { method_code: 'tpay' } });
  for (const url of [q.body.next_action.qr_raw_payload, r2.body.next_action.redirect_url]) {
    const u = new URL(url);
    const p = await get(u.pathname + u.search);
    t.equal(p.status, 200);
    checkHeaders(t, p.headers, p.html);
  }
  const err = await get(`/sandbox/3ds/${id}`);
  t.equal(err.status, 400, 'the error page of a sandbox page');
  checkHeaders(t, err.headers, err.html);
  const live = await newPayment(s, m.liveKey);
  t.equal((await get(`/sandbox/3ds/${live}`)).status, 404, 'no sandbox pages for live payments');
});

// Payment links over HTTP: create (every rule and bad value), retrieve, isolation, idempotency,
// pagination, deactivation, and the link page: a payer-set amount, uses and holds, expiry, stale holds.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { asksForAmount, hasQrCode, newLink, pageState, payLink } from '../helpers/links.js';
import { CARDS, card } from '../helpers/checkout.js';
import { releaseOldLinkIdempotencyKeys } from '../../src/store/links-repo.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'RUB', 'JPY'] });
const other = await s.merchant();
const linkPayments = async (id: string) => (await s.db.query('SELECT id, amount, currency, source, status FROM payments WHERE link_id = $1 ORDER BY created_at', [id])).rows;
const complete = (id: string, outcome: string) => s.request('POST', `/api/v2/test/payments/${id}/complete`, { key: m.key, body: { outcome } });
const linkCount = async () => (await s.db.query('SELECT count(*)::int AS n FROM links WHERE merchant_id = $1', [m.id])).rows[0].n as number;
const getLink = async (id: string) => (await s.request('GET', `/api/v2/links/${id}`, { key: m.key })).body;

t.test('create a dynamic link with a payer-set amount: the resource', async (t) => {
  const r = await s.request('POST', '/api/v2/links', { key: m.key, body: { description: 'Donation' } });
  t.equal(r.status, 201, r.text);
  t.match(r.body, {
    object: 'payment_link', livemode: false, type: 'dynamic', amount: null, currency: 'AZN', description: 'Donation',
    max_uses: null, uses: 0, expires_at: null, active: true,
  });
  t.match(r.body.id, /^lnk_[0-9A-Za-z]{20}$/);
  t.equal(r.body.url, `${s.srv.services.config.publicBaseUrl}/link/${r.body.id}`);
  t.match(r.body.request_id, /^req_/);
  t.ok(Date.parse(r.body.created_at));
  const g = await s.request('GET', `/api/v2/links/${r.body.id}`, { key: m.key });
  t.equal(g.status, 200);
  t.same({ ...g.body, request_id: null }, { ...r.body, request_id: null });
});

t.test('create a static link: fixed amount, reusable, currency upper-cased, expiry kept', async (t) => {
  const expires = new Date(Date.now() + 3600_000).toISOString();
  const r = await s.request('POST', '/api/v2/links', { key: m.key, body: { type: 'static', amount: 500, currency: 'rub', max_uses: 3, expires_at: expires } });
  t.equal(r.status, 201, r.text);
  t.match(r.body, { type: 'static', amount: 500, currency: 'RUB', max_uses: 3, uses: 0, expires_at: expires, active: true });
  const unlimited = await s.request('POST', '/api/v2/links', { key: m.key, body: { type: 'static', amount: 500 } });
  t.equal(unlimited.body.max_uses, null, 'a static link without max_uses has no limit');
});

t.test('spec: max_uses "(optional)" and "null for no limit", type "(dynamic default, or static)": a reusable dynamic link', async (t) => {
  const none = await s.request('POST', '/api/v2/links', { key: m.key, body: {} });
  t.equal(none.status, 201, none.text);
  t.match(none.body, { type: 'dynamic', amount: null, max_uses: null }, 'POST /links {} has no limit');
  t.equal((await s.request('POST', '/api/v2/links', { key: m.key, body: { amount: 100, max_uses: null } })).body.max_uses, null, 'null: no limit');
  const r = await s.request('POST', '/api/v2/links', { key: m.key, body: { amount: 2500, max_uses: 2 } });
  t.equal(r.status, 201, r.text);
  t.match(r.body, { type: 'dynamic', amount: 2500, max_uses: 2, uses: 0, active: true });
  t.notOk(hasQrCode(await (await fetch(r.body.url)).text()), 'a dynamic link\'s page shows no QR code');
  const a = await payLink(s.url, r.body.id);
  const b = await payLink(s.url, r.body.id);
  t.ok(a.paymentId && b.paymentId && a.paymentId !== b.paymentId, 'two payers, two payments');
  t.equal((await payLink(s.url, r.body.id)).status, 409, 'a third is refused while both uses are held');
  await complete(a.paymentId!, 'succeeded');
  await complete(b.paymentId!, 'succeeded');
  t.match(await getLink(r.body.id), { uses: 2, max_uses: 2, active: false });
  t.equal(pageState((await payLink(s.url, r.body.id)).html), 'link_exhausted');
  const unlimited = await newLink(s, m.key, { amount: 100 });
  for (let i = 0; i < 3; i++) {
    const p = await payLink(s.url, unlimited.id);
    t.equal(p.status, 302, `payer ${i + 1} of a link without max_uses`);
    await complete(p.paymentId!, 'succeeded');
  }
  t.match(await getLink(unlimited.id), { uses: 3, max_uses: null, active: true });
});

t.test('spec: amount "(integer or null when the payer enters the sum)" on a static link: the payer enters it, the page keeps the QR code', async (t) => {
  const r = await s.request('POST', '/api/v2/links', { key: m.key, body: { type: 'static', description: 'Tips' } });
  t.equal(r.status, 201, r.text);
  t.match(r.body, { type: 'static', amount: null, max_uses: null, active: true });
  const html = await (await fetch(r.body.url)).text();
  t.ok(asksForAmount(html), 'the page asks for the sum');
  t.ok(hasQrCode(html), 'a static link\'s page shows the printable QR code');
  for (const bad of ['0', '0.001', '-5', '12.345', 'ten', '', '100000000.00']) {
    const p = await payLink(s.url, r.body.id, { amount: bad });
    t.equal(p.status, 422, `"${bad}"`);
    t.match(p.html, /id="amount-error"/);
  }
  t.same(await linkPayments(r.body.id), [], 'no payment for a refused sum');
  const one = await payLink(s.url, r.body.id, { amount: '7.50' });
  const two = await payLink(s.url, r.body.id, { amount: '3' });
  t.equal(one.status, 302, one.html);
  t.equal(two.status, 302, two.html);
  t.same((await linkPayments(r.body.id)).map((p) => [p.amount, p.source]), [[750, 'link'], [300, 'link']], 'each payer\'s own sum, in minor units');
});

t.test('max_uses 1 on a link whose payers enter the sum: twelve payers at once, one payment', async (t) => {
  for (const type of ['static', 'dynamic']) {
    const l = await newLink(s, m.key, { type, max_uses: 1 });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => payLink(s.url, l.id, { amount: String(i + 1) })));
    t.equal(answers.filter((a) => a.status === 302).length, 1, `${type}: exactly one payer went on to the checkout`);
    t.ok(answers.filter((a) => a.status !== 302).every((a) => a.status === 409 && pageState(a.html) === 'link_busy'), `${type}: the others were told the link is being paid`);
    t.equal((await linkPayments(l.id)).length, 1, `${type}: one payment`);
  }
});

t.test('bad values get their own codes', async (t) => {
  const before = await linkCount();
  const cases: [Record<string, unknown>, number, string, string | null][] = [
    [{ amount: 0 }, 422, 'amount_invalid', 'amount'],
    [{ amount: -5 }, 422, 'amount_invalid', 'amount'],
    [{ amount: 1.5 }, 422, 'amount_invalid', 'amount'],
    [{ amount: '100' }, 422, 'amount_invalid', 'amount'],
    [{ amount: 10_000_000_000 }, 422, 'amount_invalid', 'amount'],
    [{ currency: 'XX' }, 422, 'currency_invalid', 'currency'],
    [{ currency: 'USD' }, 422, 'currency_not_enabled', 'currency'],
    [{ description: 'x'.repeat(201) }, 422, 'description_invalid', 'description'],
    [{ description: 5 }, 422, 'description_invalid', 'description'],
    [{ max_uses: 0 }, 422, 'max_uses_invalid', 'max_uses'],
    [{ max_uses: 2.5, type: 'static', amount: 1 }, 422, 'max_uses_invalid', 'max_uses'],
    [{ max_uses: '2', type: 'static', amount: 1 }, 422, 'max_uses_invalid', 'max_uses'],
    [{ max_uses: 1_000_001, type: 'static', amount: 1 }, 422, 'max_uses_invalid', 'max_uses'],
    [{ max_uses: -1 }, 422, 'max_uses_invalid', 'max_uses'],
    [{ type: 'reusable' }, 422, 'link_type_invalid', 'type'],
    [{ expires_at: '2020-01-01T00:00:00Z' }, 422, 'expires_at_invalid', 'expires_at'],
    [{ expires_at: 'tomorrow' }, 422, 'expires_at_invalid', 'expires_at'],
    [{ expires_at: new Date(Date.now() + 400 * 86400_000).toISOString() }, 422, 'expires_at_invalid', 'expires_at'],
    [{ expires_at: 1893456000 }, 422, 'expires_at_invalid', 'expires_at'],
    [{ order_id: 'x' }, 422, 'parameter_unknown', 'order_id'],
  ];
  for (const [body, status, code, param] of cases) {
    const r = await s.request('POST', '/api/v2/links', { key: m.key, body });
    t.equal(r.status, status, `${JSON.stringify(body).slice(0, 60)}: ${r.text}`);
    t.equal(r.body.error?.code, code, JSON.stringify(body).slice(0, 60));
    t.equal(r.body.error?.param, param, JSON.stringify(body).slice(0, 60));
  }
  const bad = await s.request('POST', '/api/v2/links', { key: m.key, raw: '{"amount":' });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.code, 'json_invalid');
  const ru = await s.request('POST', '/api/v2/links', { key: m.key, body: { max_uses: 0 }, headers: { 'accept-language': 'ru' } });
  t.match(ru.body.error.message, /без ограничения/);
  const noKey = await s.request('POST', '/api/v2/links', { body: {} });
  t.equal(noKey.status, 401);
  t.equal(await linkCount(), before, 'nothing refused was stored');
});

t.test('another merchant, the other mode and a malformed id get 404 link_not_found', async (t) => {
  const l = await newLink(s, m.key, { description: 'Mine' });
  for (const [key, id] of [[other.key, l.id], [m.liveKey, l.id], [m.key, 'lnk_doesnotexist000000'], [m.key, 'nope'], [m.key, 'EXZ-20260101-0000000000']]) {
    const r = await s.request('GET', `/api/v2/links/${id}`, { key });
    t.equal(r.status, 404, id);
    t.equal(r.body.error.code, 'link_not_found');
  }
  const d = await s.request('POST', `/api/v2/links/${l.id}/deactivate`, { key: other.key });
  t.equal(d.status, 404, 'another merchant cannot deactivate it');
  t.equal((await getLink(l.id)).active, true);
});

t.test('Idempotency-Key: a replay returns the first link, another body conflicts, payments keep their own keys', async (t) => {
  const body = { type: 'static', amount: 700, description: 'Tea' };
  const headers = { 'idempotency-key': 'link-key-1' };
  const a = await s.request('POST', '/api/v2/links', { key: m.key, body, headers });
  t.equal(a.status, 201);
  const b = await s.request('POST', '/api/v2/links', { key: m.key, body: { description: 'Tea', amount: 700, type: 'static' }, headers });
  t.equal(b.status, 201);
  t.equal(b.headers.get('idempotent-replayed'), 'true');
  t.equal(b.body.id, a.body.id);
  const c = await s.request('POST', '/api/v2/links', { key: m.key, body: { ...body, amount: 701 }, headers });
  t.equal(c.status, 409);
  t.equal(c.body.error.code, 'idempotency_conflict');
  const p = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100 }, headers });
  t.equal(p.status, 201, 'the same key on a payment is that payment\'s key');
  t.equal((await s.db.query('SELECT count(*)::int AS n FROM links WHERE idempotency_key = $1', ['link-key-1'])).rows[0].n, 1);
  // Redis lost the record: Postgres still knows the key, and the answer is the first link.
  await s.srv.services.kv.del(`idem:${m.id}:test:link:link-key-1`);
  const d = await s.request('POST', '/api/v2/links', { key: m.key, body, headers });
  t.equal(d.body.id, a.body.id);
  // After 24 hours the key is released (Redis forgets it; the sweeper clears it from the row).
  await s.db.query("UPDATE links SET created_at = now() - interval '25 hours' WHERE id = $1", [a.body.id]);
  t.equal(await releaseOldLinkIdempotencyKeys(s.db, 24 * 3600, 1000), 1);
  await s.srv.services.kv.del(`idem:${m.id}:test:link:link-key-1`);
  const e = await s.request('POST', '/api/v2/links', { key: m.key, body: { ...body, amount: 702 }, headers });
  t.equal(e.status, 201);
  t.not(e.body.id, a.body.id, 'a released key creates a new link');
  const bad = await s.request('POST', '/api/v2/links', { key: m.key, body, headers: { 'idempotency-key': 'x'.repeat(256) } });
  t.equal(bad.body.error.code, 'idempotency_key_invalid');
});

t.test('list: cursor pagination, newest first, every link once; bad parameters', async (t) => {
  const mm = await s.merchant();
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) ids.push((await newLink(s, mm.key, { type: 'static', amount: 100 + i })).id);
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r = await s.request('GET', `/api/v2/links?limit=3${cursor ? `&starting_after=${cursor}` : ''}`, { key: mm.key });
    t.equal(r.status, 200);
    t.equal(r.body.object, 'list');
    seen.push(...r.body.data.map((l: { id: string }) => l.id));
    cursor = r.body.has_more ? r.body.next_cursor : null;
    if (!r.body.has_more) t.equal(r.body.next_cursor, null);
    pages++;
  } while (cursor && pages < 10);
  t.equal(pages, 3);
  t.same(seen, [...ids].reverse(), 'newest first, each once');
  t.equal((await s.request('GET', '/api/v2/links', { key: mm.liveKey })).body.data.length, 0, 'live mode sees no test links');
  for (const [q, code] of [['limit=0', 'limit_invalid'], ['limit=101', 'limit_invalid'], ['limit=abc', 'limit_invalid'],
    ['starting_after=lnk_doesnotexist000000', 'cursor_invalid'], [`starting_after=${(await newLink(s, m.key)).id}`, 'cursor_invalid'], ['status=paid', 'parameter_unknown']]) {
    const r = await s.request('GET', `/api/v2/links?${q}`, { key: mm.key });
    t.equal(r.status, 422, q);
    t.equal(r.body.error.code, code, q);
  }
});

t.test('a payer-set amount through the page: minor units per currency, bounds, one payment with source link', async (t) => {
  const l = await newLink(s, m.key, { description: 'Pay what you want' });
  const page = await fetch(`${s.url}/link/${l.id}`);
  const html = await page.text();
  t.equal(page.status, 200);
  t.match(page.headers.get('content-security-policy'), /script-src 'nonce-/);
  t.match(html, /Test merchant/);
  t.match(html, /id="payer-amount"/);
  t.equal(pageState(html), null);
  for (const bad of ['0', '-1', 'abc', '1.234', '12.', '', '100000000000', '1e3']) {
    const r = await payLink(s.url, l.id, { amount: bad });
    t.equal(r.status, 422, `"${bad}"`);
    t.match(r.html, /id="amount-error"/);
  }
  t.same(await linkPayments(l.id), [], 'no payment for a refused amount');
  const r = await payLink(s.url, l.id, { amount: '12,34', lang: 'ru' });
  t.equal(r.status, 302, r.html);
  t.ok(r.paymentId);
  const p = await s.request('GET', `/api/v2/payments/${r.paymentId}`, { key: m.key });
  t.match(p.body, { amount: 1234, currency: 'AZN', source: 'link', status: 'pending', description: 'Pay what you want' });
  const jpy = await newLink(s, m.key, { currency: 'JPY' });
  t.equal((await payLink(s.url, jpy.id, { amount: '100.5' })).status, 422, 'JPY has no minor digits');
  const ok = await payLink(s.url, jpy.id, { amount: '100' });
  t.equal((await s.request('GET', `/api/v2/payments/${ok.paymentId}`, { key: m.key })).body.amount, 100);
  const fixed = await newLink(s, m.key, { amount: 900 });
  const f = await payLink(s.url, fixed.id, { amount: '1' });
  t.equal((await s.request('GET', `/api/v2/payments/${f.paymentId}`, { key: m.key })).body.amount, 900, 'a fixed amount is not the payer\'s to change');
});

t.test('a dynamic link with max_uses 1: a payment in progress holds the use; failed or expired returns it; paid spends it', async (t) => {
  const l = await newLink(s, m.key, { amount: 2500, max_uses: 1 });
  const first = await payLink(s.url, l.id);
  t.equal(first.status, 302);
  const busy = await payLink(s.url, l.id);
  t.equal(busy.status, 409, 'the one use is held by the payment in progress');
  t.equal(pageState(busy.html), 'link_busy');
  t.match(await getLink(l.id), { uses: 0, active: true });
  t.equal((await complete(first.paymentId!, 'failed')).status, 200);
  const second = await payLink(s.url, l.id);
  t.equal(second.status, 302, 'a failed payment returned its use');
  t.equal((await complete(second.paymentId!, 'expired')).status, 200);
  const third = await payLink(s.url, l.id);
  t.equal(third.status, 302, 'an expired payment returned its use');
  const paid = await s.request('POST', `/checkout/${third.paymentId}/pay`, { body: card(CARDS.success) });
  t.equal(paid.body.status, 'succeeded', paid.text);
  t.match(await getLink(l.id), { uses: 1, active: false });
  const after = await payLink(s.url, l.id);
  t.equal(after.status, 409);
  t.equal(pageState(after.html), 'link_exhausted');
  t.equal(pageState(await (await fetch(`${s.url}/link/${l.id}`)).text()), 'link_exhausted');
  t.equal((await linkPayments(l.id)).length, 3, 'no payment was created for a refused payer');
  t.same((await s.db.query('SELECT holds FROM links WHERE id = $1', [l.id])).rows[0].holds, {});
});

t.test('deactivation: final, idempotent; the page says so and creates nothing', async (t) => {
  const l = await newLink(s, m.key, { type: 'static', amount: 300 });
  const d = await s.request('POST', `/api/v2/links/${l.id}/deactivate`, { key: m.key });
  t.equal(d.status, 200);
  t.match(d.body, { id: l.id, active: false });
  t.equal((await s.request('POST', `/api/v2/links/${l.id}/deactivate`, { key: m.key })).status, 200, 'again: same answer');
  t.equal(pageState(await (await fetch(`${s.url}/link/${l.id}?lang=az`)).text()), 'link_inactive');
  const r = await payLink(s.url, l.id, { lang: 'az' });
  t.equal(r.status, 409);
  t.match(r.html, /deaktiv/);
  t.same(await linkPayments(l.id), []);
  const missing = await s.request('POST', '/api/v2/links/lnk_doesnotexist000000/deactivate', { key: m.key });
  t.equal(missing.body.error.code, 'link_not_found');
});

t.test('expires_at passed: inactive, the page says so and creates nothing', async (t) => {
  const l = await newLink(s, m.key, { type: 'static', amount: 300, expires_at: new Date(Date.now() + 3600_000).toISOString() });
  await s.db.query("UPDATE links SET expires_at = now() - interval '1 second' WHERE id = $1", [l.id]);
  t.equal((await getLink(l.id)).active, false);
  t.equal(pageState(await (await fetch(`${s.url}/link/${l.id}`)).text()), 'link_expired');
  const r = await payLink(s.url, l.id);
  t.equal(r.status, 409);
  t.equal(pageState(r.html), 'link_expired');
  t.same(await linkPayments(l.id), []);
});

t.test('a static link: reusable up to max_uses, with a printable QR code; uses counts paid payments only', async (t) => {
  const l = await newLink(s, m.key, { type: 'static', amount: 150, max_uses: 2 });
  const html = await (await fetch(`${s.url}/link/${l.id}?lang=ru`)).text();
  t.match(html, /id="link-qr" src="data:image\/svg\+xml;base64,/);
  t.match(html, /Перейти к оплате/);
  const a = await payLink(s.url, l.id);
  const b = await payLink(s.url, l.id);
  t.ok(a.paymentId && b.paymentId && a.paymentId !== b.paymentId);
  t.equal((await payLink(s.url, l.id)).status, 409, 'both uses held');
  await complete(a.paymentId!, 'succeeded');
  t.match(await getLink(l.id), { uses: 1, active: true });
  await complete(b.paymentId!, 'succeeded');
  t.match(await getLink(l.id), { uses: 2, active: false });
});

t.test('a hold left without a payment (a crash between reservation and create) is returned once stale', async (t) => {
  const l = await newLink(s, m.key, { amount: 100, max_uses: 1 });
  const old = Date.now() - 10 * 60_000;
  await s.db.query('UPDATE links SET holds = $2, version = version + 1 WHERE id = $1', [l.id, JSON.stringify({ 'EXZ-20260101-0000000000': old })]);
  const r = await payLink(s.url, l.id);
  t.equal(r.status, 302, 'the stale hold was dropped and the payer got the use');
  t.same(Object.keys((await s.db.query('SELECT holds FROM links WHERE id = $1', [l.id])).rows[0].holds), [r.paymentId]);
  // A fresh hold is not stale: its payment may still be on its way.
  const l2 = await newLink(s, m.key, { amount: 100, max_uses: 1 });
  await s.db.query('UPDATE links SET holds = $2, version = version + 1 WHERE id = $1', [l2.id, JSON.stringify({ 'EXZ-20260101-0000000001': Date.now() })]);
  t.equal((await payLink(s.url, l2.id)).status, 409);
});

t.test('hostile form posts: an oversized body is refused (413) and creates nothing; odd fields are ignored', async (t) => {
  const l = await newLink(s, m.key, { type: 'static', amount: 100 });
  const big = await payLink(s.url, l.id, { amount: '1', pad: 'x'.repeat(5000) }).catch((err: Error) => ({ status: 0, paymentId: null, html: err.message }));
  t.ok(big.status === 413 || big.status === 0, `refused (${big.status})`);
  t.equal(big.paymentId, null);
  const odd = await payLink(s.url, l.id, { lang: '<script>', amount: '\u0000' });
  t.equal(odd.status, 302, 'a fixed-amount link ignores what the payer typed');
  const nul = await newLink(s, m.key);
  const r = await payLink(s.url, nul.id, { amount: '<b>1</b>', lang: 'xx' });
  t.equal(r.status, 422);
  t.notMatch(r.html, /<b>1<\/b>/, 'the typed value is escaped');
  t.same((await linkPayments(l.id)).length, 1);
});

t.test('an unknown link page is a 404 page', async (t) => {
  for (const id of ['lnk_doesnotexist000000', 'garbage']) {
    const r = await fetch(`${s.url}/link/${id}`);
    t.equal(r.status, 404);
    t.equal(pageState(await r.text()), 'not_found');
    t.equal((await payLink(s.url, id, { amount: '1' })).status, 404);
  }
});

// The hosted page of a gateway checkout session: language, initial_method, settings.payment_methods,
// button_text, channel branding over the merchant's defaults (logo allowed by the CSP, colour,
// title), the cancel link, success_url / cancel_url with auto_return.
import t from 'tap';
import { card, CARDS } from '../helpers/checkout.js';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;
const page = async (id: string, q = '') => {
  const r = await fetch(`${s.url}/pay/${id}${q}`);
  return { status: r.status, csp: r.headers.get('content-security-policy') ?? '', html: await r.text() };
};
const data = (html: string) => JSON.parse(/<script type="application\/json" id="pe-data">([\s\S]*?)<\/script>/.exec(html)![1]);
const create = async (body: Record<string, unknown>) => {
  const r = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 4900, currency: 'RUB', ...body } });
  if (r.status !== 200) throw new Error(r.text);
  return r.body.id as string;
};

t.test('language, initial_method, the whitelist and button_text', async (t) => {
  const id = await create({ language: 'ru', initial_method: 'sbp', settings: { payment_methods: ['card', 'sbp'], button_text: 'Оплатить <заказ>' } });
  const p = await page(id);
  t.equal(p.status, 200);
  t.match(p.html, /<html lang="ru"/);
  t.match(p.html, /id="tab-sbp"[^>]*aria-selected="true"/, 'the initial method\'s tab is selected');
  t.match(p.html, /id="tab-card"[^>]*aria-selected="false"/);
  t.notMatch(p.html, /id="tab-sberpay"|id="tab-tpay"/, 'methods outside settings.payment_methods are not shown');
  t.match(p.html, /id="pay-card">Оплатить &lt;заказ&gt;</, 'button_text, escaped');
  t.match(p.html, /id="cancel-session"/, 'a cancel link');
  t.match((await page(id, '?lang=en')).html, /<html lang="en"/, '?lang= still switches');
});

t.test('channel branding over the merchant defaults; the logo origin joins img-src only', async (t) => {
  const ch = await s.request('POST', '/v1/channels', { key: sk, body: { slug: 'shop', name: 'Shop', branding: { logo_url: 'https://cdn.example.com/logo.png', primary_color: '#ff0055', custom_title: 'My <Shop>', return_url: 'https://shop.example/thanks' } } });
  t.equal(ch.status, 200, ch.text);
  const id = await create({ channel_id: 'shop' });
  const p = await page(id);
  t.match(p.html, /<img class="logo" id="brand-logo" src="https:\/\/cdn\.example\.com\/logo\.png"/);
  t.match(p.html, /id="brand-title">My &lt;Shop&gt;</);
  t.match(p.html, /button\.primary,a\.primary\{background:#ff0055\}/);
  t.match(p.csp, /img-src 'self' data: https:\/\/cdn\.example\.com;/);
  t.match(p.csp, /script-src 'nonce-[^']+';/, 'scripts still by nonce only');
  const plainId = await create({});
  const plain = await page(plainId);
  t.notMatch(plain.html, /brand-logo|brand-title/, 'the default channel has no branding');
  t.match(plain.csp, /img-src 'self' data:;/);
  // The channel's return_url is the success_url when the session names none.
  const pay = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.success) });
  t.equal(pay.body.status, 'succeeded');
  t.match(data((await page(id)).html).returnTo, /^https:\/\/shop\.example\/thanks\?session_id=cs_.*&status=succeeded$/);
});

t.test('success returns to success_url after auto_return seconds; 0 stays', async (t) => {
  const id = await create({ success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/no', settings: { auto_return: 2 } });
  await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.success) });
  const d = data((await page(id)).html);
  t.equal(d.returnTo, `https://shop.example/ok?session_id=${id}&status=succeeded`);
  t.equal(d.autoReturnMs, 2000);
  const stay = await create({ success_url: 'https://shop.example/ok', settings: { auto_return: 0 } });
  await s.request('POST', `/checkout/${stay}/pay`, { body: card(CARDS.success) });
  const p = await page(stay);
  t.equal(data(p.html).returnTo, null, 'auto_return 0: no automatic return');
  t.match(p.html, /id="return" href="https:\/\/shop\.example\/ok\?session_id=/, 'the link is still there');
});

t.test('a decline stays on its screen with cancel_url as the link; cancelling returns to cancel_url at once', async (t) => {
  const id = await create({ success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/no' });
  await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.declined) });
  const p = await page(id);
  t.equal(data(p.html).returnTo, null);
  t.match(p.html, /id="return" href="https:\/\/shop\.example\/no\?session_id=[^"]+status=failed"/);
  const c = await create({ cancel_url: 'https://shop.example/no' });
  t.equal((await s.request('POST', `/checkout/${c}/cancel`, { body: {} })).status, 200);
  const cp = await page(c);
  t.match(cp.html, /data-status="cancelled"/);
  t.equal(data(cp.html).returnTo, `https://shop.example/no?session_id=${c}&status=cancelled`);
  t.equal(data(cp.html).autoReturnMs, 0);
});

// The hosted checkout in a real browser (headless Chromium): a success card, 3-D Secure pass and
// fail, a merchant page that form-POSTs creq to acs_url (EMV browser flow), a decline with its message, SBP through the bank page, a wallet redirect, a device wallet,
// the ru and az pages, a 320 px viewport, and the return to return_url with payment_id and status.
// Screenshots of each final screen go to test/artifacts/. Afterwards Postgres (every table, as
// text) and the captured logs must hold no full card number and no CVC.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import type { Logger } from '../../src/log.js';
import { CARDS, CVC, newPayment } from '../helpers/checkout.js';
import { artifact, capturingLogger, CHROMIUM, CHROMIUM_ARGS, noBrowser } from '../helpers/browser.js';

if (noBrowser) {
  t.plan(0, noBrowser); // the whole file is skipped, with the reason
} else {
  await run();
}

async function run() {
  const { chromium } = await import('playwright-core');
  // The server's own logger from its start, so the access lines (a card pay's names its last4) are scanned too.
  const captured = capturingLogger();
  const s = await startTestServer(t, {}, { log: captured.log as unknown as Logger });
  const m = await s.merchant({ currencies: ['AZN', 'RUB'] });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  t.teardown(() => browser.close());
  const cspErrors: string[] = [];

  async function open(id: string, viewport = { width: 800, height: 900 }, query = '') {
    const context = await browser.newContext({ viewport });
    await context.route('https://shop.example/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Shop</title><h1>Back at the shop</h1>' }));
    const page = await context.newPage();
    page.on('console', (msg) => { if (/Content Security Policy|Refused to/i.test(msg.text())) cspErrors.push(msg.text()); });
    await page.goto(`${s.url}/pay/${id}${query}`);
    return { page, context };
  }
  type Page = Awaited<ReturnType<typeof open>>['page'];

  async function payCard(page: Page, number: string) {
    await page.fill('#cc-number', number.replace(/(\d{4})(?=\d)/g, '$1 '));
    await page.fill('#cc-exp', '12/34');
    await page.fill('#cc-cvc', CVC);
    await page.click('#pay-card');
  }
  const outcome = (page: Page, status: string) => page.waitForSelector(`#outcome[data-status="${status}"]`, { timeout: 15_000 });

  t.test('a success card', async (t) => {
    const id = await newPayment(s, m.key, { description: 'Green tea', customer: { email: 'ann@shop.example' } });
    const { page, context } = await open(id);
    t.equal(await page.getAttribute('#tab-card', 'aria-selected'), 'true');
    await page.focus('#tab-card');
    await page.keyboard.press('ArrowRight');
    t.equal(await page.getAttribute('#tab-sbp', 'aria-selected'), 'true', 'arrow keys move between tabs');
    t.ok(await page.isVisible('#panel-sbp'));
    t.notOk(await page.isVisible('#panel-card'));
    await page.keyboard.press('ArrowLeft');
    t.equal(await page.evaluate(() => document.activeElement?.id), 'tab-card');
    await payCard(page, CARDS.success);
    await outcome(page, 'succeeded');
    t.match(await page.textContent('#outcome'), /Payment successful[\s\S]*Visa •••• 4242/);
    await page.screenshot({ path: artifact('card-success'), fullPage: true });
    await context.close();
  });

  t.test('3-D Secure passed on the ACS page', async (t) => {
    const id = await newPayment(s, m.key);
    const { page, context } = await open(id);
    await payCard(page, CARDS.challenge);
    await page.waitForURL(/\/sandbox\/3ds\//);
    t.match(await page.textContent('h1'), /3-D Secure/);
    await page.screenshot({ path: artifact('3ds-acs-page'), fullPage: true });
    await page.click('#approve');
    await outcome(page, 'succeeded');
    t.match(page.url(), new RegExp(`/pay/${id}\\?lang=en$`));
    await page.screenshot({ path: artifact('3ds-pass'), fullPage: true });
    await context.close();
  });

  t.test('a merchant front end form-POSTs creq to acs_url (EMV browser flow) and the challenge completes', async (t) => {
    const id = await newPayment(s, m.key, { locale: 'en' });
    const r = await s.request('POST', `/checkout/${id}/pay`, { body: { number: CARDS.challenge, exp_month: '12', exp_year: '34', cvc: CVC } });
    t.equal(r.body.next_action?.type, 'three_ds_challenge', r.text);
    const { acs_url: acsUrl, creq } = r.body.next_action as { acs_url: string; creq: string };
    const attr = (v: string) => v.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
    const shop = `<!doctype html><title>Shop checkout</title><h1>Redirecting to your bank…</h1>
<form id="to-acs" method="post" action="${attr(acsUrl)}" enctype="application/x-www-form-urlencoded">
<input type="hidden" name="creq" value="${attr(creq)}"><input type="hidden" name="threeDSSessionData" value="order-42">
<button id="go" type="submit">Continue</button></form><script>document.getElementById('to-acs').submit()</script>`;
    const context = await browser.newContext({ viewport: { width: 800, height: 900 } });
    await context.route('http://shop.example/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: shop }));
    const page = await context.newPage();
    page.on('console', (msg) => { if (/Content Security Policy|Refused to/i.test(msg.text())) cspErrors.push(msg.text()); });
    await page.goto('http://shop.example/checkout');
    await page.waitForURL(/\/sandbox\/3ds\//);
    t.match(await page.textContent('h1'), /3-D Secure/, 'the challenge, reached by the form POST');
    t.ok(await page.isVisible('#approve'));
    await page.screenshot({ path: artifact('3ds-acs-form-post'), fullPage: true });
    await page.click('#approve');
    await outcome(page, 'succeeded');
    t.match(page.url(), new RegExp(`/pay/${id}\\?lang=en$`));
    const p = await s.request('GET', `/api/v2/payments/${id}`, { key: m.key });
    t.equal(p.body.status, 'succeeded', 'the answer reached the payment');
    await context.close();
  });

  t.test('3-D Secure failed', async (t) => {
    const id = await newPayment(s, m.key);
    const { page, context } = await open(id);
    await payCard(page, CARDS.challenge);
    await page.waitForURL(/\/sandbox\/3ds\//);
    await page.click('#decline');
    await outcome(page, 'failed');
    t.match(await page.textContent('#failure'), /3-D Secure check was not passed/);
    await page.screenshot({ path: artifact('3ds-fail'), fullPage: true });
    await context.close();
  });

  t.test('a decline with its message; a bad number is refused on the page', async (t) => {
    const id = await newPayment(s, m.key);
    const { page, context } = await open(id);
    await payCard(page, '4242424242424241');
    await page.waitForSelector('#cc-number-error:not([hidden])'); // the page's own check, under the field
    t.match(await page.textContent('#cc-number-error'), /card number is not valid/);
    await payCard(page, CARDS.insufficient);
    await outcome(page, 'failed');
    t.match(await page.textContent('#outcome'), /Payment declined[\s\S]*not enough funds/);
    await page.screenshot({ path: artifact('card-declined'), fullPage: true });
    await context.close();
  });

  t.test('SBP: QR code and bank list, paid through the bank page while the checkout polls', async (t) => {
    const id = await newPayment(s, m.key);
    const { page, context } = await open(id);
    await page.click('#tab-sbp');
    await page.click('#sbp-start');
    await page.waitForSelector('#sbp-qr:not([hidden])');
    t.match(await page.getAttribute('#qr-img', 'src'), /^data:image\/svg\+xml;base64,/);
    t.equal(await page.evaluate(() => (document.getElementById('qr-img') as HTMLImageElement).naturalWidth > 0), true, 'the QR image renders');
    await page.waitForSelector('#status:not([hidden])');
    await page.screenshot({ path: artifact('sbp-qr'), fullPage: true });
    const bankLink = await page.getAttribute('#banks a', 'href');
    t.match(bankLink, /\/sandbox\/sbp\/.*member=100000000111&lang=en$/);
    const bank = await context.newPage();
    await bank.goto(bankLink!);
    await bank.screenshot({ path: artifact('sbp-bank-page'), fullPage: true });
    await bank.click('#approve');
    await outcome(bank, 'succeeded');
    await outcome(page, 'succeeded'); // the polling checkout learns it too
    await page.screenshot({ path: artifact('sbp-success'), fullPage: true });
    await context.close();
  });

  t.test('a wallet redirect (T-Pay) approved on the wallet page', async (t) => {
    const id = await newPayment(s, m.key);
    const { page, context } = await open(id);
    await page.click('#tab-tpay');
    await page.fill('#phone-tpay', '+79001234567');
    await page.click('#go-tpay');
    await page.waitForURL(/\/sandbox\/wallet\//);
    await page.screenshot({ path: artifact('wallet-page'), fullPage: true });
    await page.click('#approve');
    await outcome(page, 'succeeded');
    await page.screenshot({ path: artifact('wallet-success'), fullPage: true });
    const st = await s.request('GET', `/checkout/${id}/status`);
    t.equal(st.body.selected_method_code, 'tpay');
    await context.close();
  });

  t.test('a device wallet (Google Pay) in a modal', async (t) => {
    const id = await newPayment(s, m.key, { currency: 'AZN' });
    const { page, context } = await open(id);
    await page.click('#tab-google_pay');
    await page.click('#go-google_pay');
    await page.waitForSelector('#wallet-dialog[open]');
    await page.screenshot({ path: artifact('google-pay-modal'), fullPage: true });
    await page.click('#wallet-approve');
    await outcome(page, 'succeeded');
    t.pass('paid');
    await context.close();
  });

  t.test('the ru page, switched to az', async (t) => {
    const id = await newPayment(s, m.key, { locale: 'ru', description: 'Зелёный чай' });
    const { page, context } = await open(id);
    t.equal(await page.getAttribute('html', 'lang'), 'ru');
    t.match(await page.textContent('#pay-card'), /Оплатить 49,00\s₽/);
    t.match(await page.textContent('label[for=cc-number]'), /Номер карты/);
    await page.screenshot({ path: artifact('page-ru'), fullPage: true });
    await page.click('a[hreflang=az]');
    await page.waitForURL(/lang=az/);
    t.equal(await page.getAttribute('html', 'lang'), 'az');
    t.match(await page.textContent('#pay-card'), /Ödə 49,00\s₽/);
    await payCard(page, CARDS.declined);
    await outcome(page, 'failed');
    t.match(await page.textContent('#outcome'), /Ödəniş rədd edildi[\s\S]*Bank ödənişi rədd etdi/);
    await page.screenshot({ path: artifact('page-az-declined'), fullPage: true });
    await context.close();
  });

  t.test('an az payment page', async (t) => {
    const id = await newPayment(s, m.key, { locale: 'az', currency: 'AZN' });
    const { page, context } = await open(id);
    t.equal(await page.getAttribute('html', 'lang'), 'az');
    t.match(await page.textContent('label[for=cc-number]'), /Kart nömrəsi/);
    await page.screenshot({ path: artifact('page-az'), fullPage: true });
    await context.close();
  });

  t.test('320 px wide: nothing overflows, and the payment goes through', async (t) => {
    const id = await newPayment(s, m.key);
    const { page, context } = await open(id, { width: 320, height: 640 });
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    t.ok(width <= 320, `page width ${width}`);
    const box = await page.locator('#pay-card').boundingBox();
    t.ok(box && box.x >= 0 && box.x + box.width <= 320, 'the pay button is inside the screen');
    await page.screenshot({ path: artifact('page-320px'), fullPage: true });
    await payCard(page, CARDS.mir);
    await outcome(page, 'succeeded');
    t.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 320);
    await page.screenshot({ path: artifact('success-320px'), fullPage: true });
    await context.close();
  });

  t.test('return_url: automatic return, and the button, with payment_id and status', async (t) => {
    const id = await newPayment(s, m.key, { return_url: 'https://shop.example/back?order=9' });
    const { page, context } = await open(id);
    await payCard(page, CARDS.success);
    await outcome(page, 'succeeded');
    await page.screenshot({ path: artifact('return-countdown'), fullPage: true });
    await page.waitForURL(/^https:\/\/shop\.example\//, { timeout: 15_000 });
    const u = new URL(page.url());
    t.same([u.pathname, u.searchParams.get('order'), u.searchParams.get('payment_id'), u.searchParams.get('status')], ['/back', '9', id, 'succeeded']);
    const failedId = await newPayment(s, m.key, { return_url: 'https://shop.example/back' });
    await page.goto(`${s.url}/pay/${failedId}`);
    await payCard(page, CARDS.declined);
    await outcome(page, 'failed');
    await page.click('#return');
    await page.waitForURL(/^https:\/\/shop\.example\//);
    const v = new URL(page.url());
    t.same([v.searchParams.get('payment_id'), v.searchParams.get('status')], [failedId, 'failed']);
    await context.close();
  });

  t.test('no Content-Security-Policy violation on any page', async (t) => {
    t.same(cspErrors, []);
  });

  t.test('no full card number and no CVC in Postgres or in the logs', async (t) => {
    const numbers = Object.values(CARDS).concat('4242424242424241');
    const tables = (await s.db.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).rows.map((r: { tablename: string }) => r.tablename);
    t.ok(tables.includes('payments') && tables.includes('events') && tables.includes('saved_cards'));
    let dump = '';
    for (const table of tables) {
      const { rows } = await s.db.query(`SELECT t::text AS row FROM "${table}" t`);
      dump += rows.map((r: { row: string }) => r.row).join('\n') + '\n';
    }
    t.ok(dump.includes('4242') && dump.includes('fingerprint'), 'the scan sees the stored cards (last4, fingerprint)');
    const logs = captured.lines.join('');
    t.match(logs, /"route":"\/checkout\/:id\/pay"[^\n]*"last4":"\d{4}"/, 'the scan sees the request logs (the pay\'s line names the card by its last4)');
    // A CVC as a token on its own (not inside an id, a number or a time's fraction).
    const cvcRe = new RegExp(`(^|[^0-9A-Za-z.:])${CVC}([^0-9A-Za-z]|$)`);
    for (const [name, text] of [['postgres', dump], ['logs', logs]] as const) {
      for (const n of numbers) t.notOk(text.includes(n), `${name}: no ${n.slice(0, 6)}…`);
      t.notOk(/\b\d{4} \d{4} \d{4} \d{4}\b/.test(text), `${name}: no spaced card number`);
      t.notOk(/"cvc"/i.test(text), `${name}: no cvc field`);
      t.notOk(cvcRe.test(text), `${name}: no CVC value`);
    }
  });
}

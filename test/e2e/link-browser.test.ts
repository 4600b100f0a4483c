// Payment links in a real browser (headless Chromium): a payer enters the amount on the link page,
// continues to the hosted checkout and pays with a test card; a static link whose payers enter the
// sum shows its QR code and takes several payers; and two browsers racing for a link with max_uses 1
// (fixed or payer-entered sum) get one payment between them. Screenshots go to test/artifacts/.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { CARDS, CVC } from '../helpers/checkout.js';
import { hasQrCode, newLink } from '../helpers/links.js';
import { artifact, CHROMIUM, CHROMIUM_ARGS, noBrowser } from '../helpers/browser.js';

if (noBrowser) {
  t.plan(0, noBrowser); // the whole file is skipped, with the reason
} else {
  await run();
}

async function run() {
  const { chromium } = await import('playwright-core');
  const s = await startTestServer(t);
  const m = await s.merchant({ name: 'Tea House', currencies: ['AZN', 'RUB'] });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  t.teardown(() => browser.close());
  const cspErrors: string[] = [];

  async function open(path: string) {
    const context = await browser.newContext({ viewport: { width: 420, height: 900 } });
    const page = await context.newPage();
    page.on('console', (msg) => { if (/Content Security Policy|Refused to/i.test(msg.text())) cspErrors.push(msg.text()); });
    await page.goto(`${s.url}${path}`);
    return { page, context };
  }
  type Page = Awaited<ReturnType<typeof open>>['page'];

  async function payCard(page: Page, number: string) {
    await page.fill('#cc-number', number.replace(/(\d{4})(?=\d)/g, '$1 '));
    await page.fill('#cc-exp', '12/34');
    await page.fill('#cc-cvc', CVC);
    await page.click('#pay-card');
  }

  t.test('a payer-set amount, paid end to end with a test card (ru page)', async (t) => {
    const l = await newLink(s, m.key, { description: 'Donation for the tea garden', max_uses: 1 });
    const { page, context } = await open(`/link/${l.id}?lang=ru`);
    t.match(await page.textContent('#merchant'), /Tea House/);
    t.match(await page.textContent('h1'), /Donation for the tea garden/);
    t.match(await page.textContent('label[for=payer-amount]'), /Сумма к оплате/);
    await page.fill('#payer-amount', '0,001');
    await page.click('#pay-link');
    await page.waitForSelector('#amount-error');
    t.match(await page.textContent('#amount-error'), /0,01\s₼/, 'the bounds are said in the currency\'s units');
    await page.screenshot({ path: artifact('link-amount-error'), fullPage: true });
    await page.fill('#payer-amount', '12,50');
    await page.click('#pay-link');
    await page.waitForURL(/\/pay\/EXZ-/);
    t.match(await page.textContent('#amount'), /12,50\s₼/);
    t.equal(await page.getAttribute('html', 'lang'), 'ru', 'the checkout keeps the payer\'s language');
    await payCard(page, CARDS.success);
    await page.waitForSelector('#outcome[data-status="succeeded"]', { timeout: 15_000 });
    await page.screenshot({ path: artifact('link-paid'), fullPage: true });
    const pid = /\/pay\/(EXZ-[^/?]+)/.exec(page.url())![1];
    const p = await s.request('GET', `/api/v2/payments/${pid}`, { key: m.key });
    t.match(p.body, { status: 'succeeded', amount: 1250, currency: 'AZN', source: 'link' });
    const got = await s.request('GET', `/api/v2/links/${l.id}`, { key: m.key });
    t.match(got.body, { uses: 1, active: false });
    await page.goto(`${s.url}/link/${l.id}?lang=en`);
    t.equal(await page.getAttribute('#link-state', 'data-state'), 'link_exhausted');
    t.notOk(await page.$('#link-form'), 'no form on a paid link');
    await context.close();
  });

  t.test('max_uses 1: two browsers pay at once, one gets the checkout, the other is told', async (t) => {
    const l = await newLink(s, m.key, { amount: 4200, description: 'Last teapot', max_uses: 1 });
    const one = await open(`/link/${l.id}`);
    const two = await open(`/link/${l.id}`);
    t.match(await one.page.textContent('#amount'), /₼42\.00/);
    await Promise.all([one.page.click('#pay-link'), two.page.click('#pay-link')]);
    await Promise.all([one.page.waitForLoadState('load'), two.page.waitForLoadState('load')]);
    const onPay = async (p: Page) => { await p.waitForSelector('#cc-number, #link-state', { timeout: 15_000 }); return /\/pay\/EXZ-/.test(p.url()); };
    const [a, b] = await Promise.all([onPay(one.page), onPay(two.page)]);
    t.equal(Number(a) + Number(b), 1, 'exactly one browser reached the checkout');
    const winner = a ? one.page : two.page;
    const loser = a ? two.page : one.page;
    t.equal(await loser.getAttribute('#link-state', 'data-state'), 'link_busy');
    await loser.screenshot({ path: artifact('link-busy'), fullPage: true });
    await payCard(winner, CARDS.success);
    await winner.waitForSelector('#outcome[data-status="succeeded"]', { timeout: 15_000 });
    await loser.reload();
    t.equal(await loser.getAttribute('#link-state', 'data-state'), 'link_exhausted', 'after the payment, the link is used up');
    await loser.screenshot({ path: artifact('link-exhausted'), fullPage: true });
    const n = (await s.db.query('SELECT count(*)::int AS n FROM payments WHERE link_id = $1', [l.id])).rows[0].n;
    t.equal(n, 1, 'one payment between them');
    await one.context.close();
    await two.context.close();
  });

  t.test('spec: a static link "(amount … null when the payer enters the sum)": QR code, each payer types a sum and pays', async (t) => {
    const l = await newLink(s, m.key, { type: 'static', description: 'Tip jar' });
    for (const [i, sum] of ['5', '12.30'].entries()) {
      const { page, context } = await open(`/link/${l.id}?lang=en`);
      t.ok(hasQrCode(await page.content()), 'the printable QR code is on the page');
      t.ok(await page.isVisible('#link-qr'), 'and visible');
      await page.fill('#payer-amount', '1.005');
      await page.click('#pay-link');
      await page.waitForSelector('#amount-error');
      t.equal(await page.getAttribute('#payer-amount', 'aria-invalid'), 'true', 'a third decimal is refused, the field says so');
      await page.fill('#payer-amount', sum);
      if (i === 0) await page.screenshot({ path: artifact('link-static-payer-amount'), fullPage: true });
      await page.click('#pay-link');
      await page.waitForURL(/\/pay\/EXZ-/);
      await payCard(page, CARDS.success);
      await page.waitForSelector('#outcome[data-status="succeeded"]', { timeout: 15_000 });
      await context.close();
    }
    const got = await s.request('GET', `/api/v2/links/${l.id}`, { key: m.key });
    t.match(got.body, { type: 'static', amount: null, max_uses: null, uses: 2, active: true }, 'no limit: still open after two payers');
    const rows = (await s.db.query("SELECT amount, status FROM payments WHERE link_id = $1 ORDER BY created_at", [l.id])).rows;
    t.same(rows, [{ amount: 500, status: 'succeeded' }, { amount: 1230, status: 'succeeded' }]);
  });

  t.test('max_uses 1 on a static link whose payers enter the sum: two browsers submit at once, one payment', async (t) => {
    const l = await newLink(s, m.key, { type: 'static', max_uses: 1, description: 'One seat' });
    const one = await open(`/link/${l.id}`);
    const two = await open(`/link/${l.id}`);
    await one.page.fill('#payer-amount', '10');
    await two.page.fill('#payer-amount', '20');
    await Promise.all([one.page.click('#pay-link'), two.page.click('#pay-link')]);
    const onPay = async (p: Page) => { await p.waitForSelector('#cc-number, #link-state', { timeout: 15_000 }); return /\/pay\/EXZ-/.test(p.url()); };
    const [a, b] = await Promise.all([onPay(one.page), onPay(two.page)]);
    t.equal(Number(a) + Number(b), 1, 'exactly one browser reached the checkout');
    t.equal(await (a ? two.page : one.page).getAttribute('#link-state', 'data-state'), 'link_busy');
    const rows = (await s.db.query('SELECT amount FROM payments WHERE link_id = $1', [l.id])).rows;
    t.same(rows, [{ amount: a ? 1000 : 2000 }], 'one payment, of the winner\'s sum');
    await one.context.close();
    await two.context.close();
  });

  t.test('the pages ran under the CSP with no violation', async (t) => {
    t.same(cspErrors, []);
  });
}

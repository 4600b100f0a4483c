// The customer's language holds through every page of a payment. A payment created in English is
// opened with ?lang=ru (or reached from the link page in Russian): the 3-D Secure ACS page (passed
// and failed), the SBP bank page, the wallet page and the result page all come back in Russian, as
// does the way back from a sandbox error page.
import t from 'tap';
import type { Page } from 'playwright-core';
import { startTestServer } from '../helpers/server.js';
import { CARDS, CVC, newPayment } from '../helpers/checkout.js';
import { newLink } from '../helpers/links.js';
import { artifact, CHROMIUM, CHROMIUM_ARGS, noBrowser } from '../helpers/browser.js';

async function run() {
  const { chromium } = await import('playwright-core');
  const s = await startTestServer(t);
  const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  t.teardown(() => browser.close());

  async function open(path: string) {
    // The browser itself asks for English: only the customer's choice says Russian.
    const context = await browser.newContext({ viewport: { width: 375, height: 800 }, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${s.url}${path}`);
    return { page, context };
  }
  const lang = (page: Page) => page.getAttribute('html', 'lang');
  async function payCard(page: Page, number: string) {
    await page.fill('#cc-number', number);
    await page.fill('#cc-exp', '12/34');
    await page.fill('#cc-cvc', CVC);
    await page.click('#pay-card');
  }

  t.test('3-D Secure passed: ACS and result in the chosen language', async (t) => {
    const id = await newPayment(s, m.key, { locale: 'en' });
    const { page, context } = await open(`/pay/${id}?lang=ru`);
    t.equal(await lang(page), 'ru');
    await payCard(page, CARDS.challenge);
    await page.waitForURL(/\/sandbox\/3ds\//);
    t.equal(await lang(page), 'ru', 'the ACS page');
    t.equal(await page.textContent('h1'), 'Проверка 3-D Secure');
    await page.screenshot({ path: artifact('lang-ru-3ds-acs'), fullPage: true });
    await page.click('#approve');
    await page.waitForSelector('#outcome[data-status="succeeded"]');
    t.equal(await lang(page), 'ru', 'the result page');
    t.match(await page.textContent('#outcome h2'), 'Оплата прошла успешно');
    await context.close();
  });

  t.test('3-D Secure failed: the result says why in the chosen language', async (t) => {
    const id = await newPayment(s, m.key, { locale: 'en' });
    const { page, context } = await open(`/pay/${id}?lang=az`);
    await payCard(page, CARDS.challenge);
    await page.waitForURL(/\/sandbox\/3ds\//);
    t.equal(await lang(page), 'az', 'the ACS page');
    await page.click('#decline');
    await page.waitForSelector('#outcome[data-status="failed"]');
    t.equal(await lang(page), 'az', 'the result page');
    t.equal(await page.textContent('#failure'), '3-D Secure yoxlamasından keçilmədi.');
    await context.close();
  });

  t.test('SBP: the bank page and the result in the chosen language', async (t) => {
    const id = await newPayment(s, m.key, { locale: 'en' });
    const { page, context } = await open(`/pay/${id}?lang=ru`);
    await page.click('#tab-sbp');
    await page.click('#sbp-start');
    await page.waitForSelector('#sbp-qr:not([hidden])');
    const bankLink = await page.getAttribute('#banks a', 'href');
    const bank = await context.newPage();
    await bank.goto(bankLink!);
    t.equal(await lang(bank), 'ru', 'the bank page');
    t.equal(await bank.textContent('h1'), 'Приложение банка');
    await bank.click('#approve');
    await bank.waitForSelector('#outcome[data-status="succeeded"]');
    t.equal(await lang(bank), 'ru', 'the result page after the bank');
    await page.waitForSelector('#outcome[data-status="succeeded"]');
    t.equal(await lang(page), 'ru', 'the polling page, reloaded');
    await context.close();
  });

  t.test('a wallet redirect: the wallet page and the result in the chosen language', async (t) => {
    const id = await newPayment(s, m.key, { locale: 'en' });
    const { page, context } = await open(`/pay/${id}?lang=ru`);
    await page.click('#tab-tpay');
    await page.fill('#phone-tpay', '+79001234567');
    await page.click('#go-tpay');
    await page.waitForURL(/\/sandbox\/wallet\//);
    t.equal(await lang(page), 'ru', 'the wallet page');
    t.equal(await page.textContent('#approve'), 'Подтвердить');
    await page.click('#approve');
    await page.waitForSelector('#outcome[data-status="succeeded"]');
    t.equal(await lang(page), 'ru', 'the result page');
    await context.close();
  });

  t.test('the link page in Russian: the hosted page, the ACS and the result stay Russian', async (t) => {
    const link = await newLink(s, m.key, { amount: 4900, currency: 'RUB', description: 'Чай' });
    const { page, context } = await open(`/link/${link.id}?lang=ru`);
    t.equal(await lang(page), 'ru');
    await page.click('#pay-link');
    await page.waitForURL(/\/pay\//);
    t.equal(await lang(page), 'ru', 'the hosted page');
    await payCard(page, CARDS.challenge);
    await page.waitForURL(/\/sandbox\/3ds\//);
    t.equal(await lang(page), 'ru', 'the ACS page');
    await page.click('#approve');
    await page.waitForSelector('#outcome[data-status="succeeded"]');
    t.equal(await lang(page), 'ru', 'the result page');
    await context.close();
  });

  t.test('a sandbox error page leads back in the chosen language', async (t) => {
    const id = await newPayment(s, m.key, { locale: 'en' });
    const { page, context } = await open(`/sandbox/3ds/${id}?lang=ru`); // no creq: an error page
    t.equal(await lang(page), 'ru');
    await page.click('#back');
    await page.waitForSelector('#pay-card');
    t.equal(await lang(page), 'ru', 'the hosted page');
    await context.close();
  });
}

if (noBrowser) {
  t.plan(0, noBrowser);
} else {
  await run();
}

// The card form as a customer meets it at 375 px (and 320): a bad number, a past expiry and a
// one-digit CVC are all named at once, each under its field, and nothing is sent; the number is
// grouped as it is typed (Amex 4-6-5); the method tabs never leave one tab alone on a row; the
// language links stay on one line in Russian; and no page of a payment asks for a file that is not
// there (the favicon).
import t from 'tap';
import type { Page } from 'playwright-core';
import { startTestServer } from '../helpers/server.js';
import { messageFor } from '../../src/errors.js';
import { CARDS, CVC, newPayment } from '../helpers/checkout.js';
import { newLink } from '../helpers/links.js';
import { artifact, CHROMIUM, CHROMIUM_ARGS, noBrowser } from '../helpers/browser.js';

async function run() {
  const { chromium } = await import('playwright-core');
  const s = await startTestServer(t);
  const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  t.teardown(() => browser.close());

  /** A page that records every answer of 400 or more and every request to the pay endpoint. */
  async function open(path: string, width = 375) {
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    const page = await context.newPage();
    const failed: string[] = [];
    const payCalls: string[] = [];
    page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`); });
    page.on('request', (r) => { if (/\/checkout\/[^/]+\/pay$/.test(new URL(r.url()).pathname)) payCalls.push(r.url()); });
    await page.goto(`${s.url}${path}`);
    return { page, context, failed, payCalls };
  }
  const shown = (page: Page, sel: string) => page.$eval(sel, (e) => !(e as HTMLElement).hidden && e.getBoundingClientRect().height > 0 ? (e.textContent ?? '') : null);

  t.test('every field error at once, under its field; nothing is sent; fixing a field clears its error', async (t) => {
    const id = await newPayment(s, m.key);
    const { page, context, payCalls } = await open(`/pay/${id}?lang=en`);
    await page.fill('#cc-number', '4242 4242 4242 4241'); // fails the Luhn check
    await page.fill('#cc-exp', '01/20');
    await page.fill('#cc-cvc', '7');
    await page.click('#pay-card');
    t.equal(await shown(page, '#cc-number-error'), messageFor('card_number_invalid', 'en'), 'the catalogue\'s own message');
    t.equal(await shown(page, '#cc-exp-error'), messageFor('card_expiry_invalid', 'en'));
    t.equal(await shown(page, '#cc-cvc-error'), messageFor('card_cvc_invalid', 'en'));
    for (const f of ['#cc-number', '#cc-exp', '#cc-cvc']) {
      t.equal(await page.getAttribute(f, 'aria-invalid'), 'true', `${f} is marked invalid`);
      t.equal(await page.getAttribute(f, 'aria-describedby'), `${f.slice(1)}-error`, `${f} is described by its error`);
    }
    t.equal(await page.evaluate(() => document.activeElement?.id), 'cc-number', 'the first wrong field has the focus');
    await page.screenshot({ path: artifact('card-form-375-all-errors'), fullPage: true });
    t.same(payCalls, [], 'nothing was sent');
    await page.fill('#cc-cvc', CVC);
    t.equal(await shown(page, '#cc-cvc-error'), null, 'a field being fixed loses its error');
    t.ok(await shown(page, '#cc-number-error'), 'the others keep theirs');
    await page.fill('#cc-number', CARDS.success);
    await page.fill('#cc-exp', '12/34');
    await page.click('#pay-card');
    await page.waitForSelector('#outcome[data-status="succeeded"]');
    t.equal(payCalls.length, 1, 'sent once all fields are right');
    await context.close();
  });

  t.test('the card number is grouped as it is typed', async (t) => {
    const id = await newPayment(s, m.key);
    const { page, context } = await open(`/pay/${id}`);
    await page.locator('#cc-number').pressSequentially('4242424242424242');
    t.equal(await page.inputValue('#cc-number'), '4242 4242 4242 4242');
    await page.fill('#cc-number', '');
    await page.locator('#cc-number').pressSequentially('378282246310005');
    t.equal(await page.inputValue('#cc-number'), '3782 822463 10005', 'American Express: 4-6-5');
    // Typing in the middle keeps the caret after the typed digit.
    await page.fill('#cc-number', '');
    await page.locator('#cc-number').pressSequentially('42424242');
    await page.evaluate(() => (document.getElementById('cc-number') as HTMLInputElement).setSelectionRange(2, 2));
    await page.keyboard.type('9');
    t.equal(await page.inputValue('#cc-number'), '4294 2424 2');
    t.equal(await page.evaluate(() => (document.getElementById('cc-number') as HTMLInputElement).selectionStart), 3, 'the caret follows the typed digit');
    await context.close();
  });

  for (const width of [320, 375]) {
    for (const lang of ['en', 'ru']) {
      t.test(`${lang} at ${width} px: no lone method tab on a row, the language links on one line`, async (t) => {
        const id = await newPayment(s, m.key);
        const { page, context } = await open(`/pay/${id}?lang=${lang}`, width);
        const rows = await page.$$eval('[role=tab]', (els) => {
          const by = new Map<number, { n: number; left: number; right: number }>();
          for (const e of els) {
            const r = e.getBoundingClientRect();
            const k = Math.round(r.top);
            const row = by.get(k) ?? { n: 0, left: Infinity, right: -Infinity };
            by.set(k, { n: row.n + 1, left: Math.min(row.left, r.left), right: Math.max(row.right, r.right) });
          }
          return [...by.values()];
        });
        t.ok(rows.reduce((a, r) => a + r.n, 0) >= 6, 'the test merchant offers several methods');
        t.same(rows.filter((r) => r.n < 2), [], `every row holds at least two tabs: ${rows.map((r) => r.n).join('/')}`);
        t.ok(rows.every((r) => Math.abs(r.left - rows[0].left) < 1 && Math.abs(r.right - rows[0].right) < 1), 'every row spans the same width');
        const tops = await page.$$eval('.langs a', (els) => els.map((e) => Math.round(e.getBoundingClientRect().top)));
        t.equal(tops.length, 3);
        t.equal(new Set(tops).size, 1, `the language links share one line: ${tops.join(', ')}`);
        await page.screenshot({ path: artifact(`card-form-${lang}-${width}-tabs`), fullPage: true });
        await context.close();
      });
    }
  }

  // Every 8 px across the phone widths, where the badge and the links compete for the line (the
  // switch used to drop at 320-416 px), then every 32 px up to 1280.
  const WIDTHS = [...Array.from({ length: 21 }, (_, i) => 320 + 8 * i), ...Array.from({ length: 25 }, (_, i) => 512 + 32 * i)];
  t.test('the language links stay on one line, beside the test badge, at every width from 320 to 1280 px, in every language', async (t) => {
    const id = await newPayment(s, m.key);
    const { page, context } = await open(`/pay/${id}?lang=ru`, 320);
    const wrapped: string[] = [];
    for (const lang of ['ru', 'az', 'en']) {
      await page.goto(`${s.url}/pay/${id}?lang=${lang}`);
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 800 });
        const m = await page.evaluate(() => {
          const badge = document.querySelector('.top .badge')!.getBoundingClientRect();
          const nav = document.querySelector('.langs')!.getBoundingClientRect();
          return { tops: [...document.querySelectorAll('.langs a')].map((e) => Math.round(e.getBoundingClientRect().top)), beside: nav.top < badge.bottom && nav.bottom > badge.top && nav.left >= badge.right };
        });
        if (new Set(m.tops).size !== 1 || !m.beside) wrapped.push(`${lang} ${width}: links at ${m.tops.join(', ')}${m.beside ? '' : ', not beside the badge'}`);
      }
    }
    t.same(wrapped, [], 'no width at which the language links drop below the badge or onto two lines');
    await context.close();
  });

  t.test('no page of a payment asks for a missing file (favicon included)', async (t) => {
    const ico = await fetch(`${s.url}/favicon.ico`);
    t.equal(ico.status, 200, '/favicon.ico');
    t.match(ico.headers.get('content-type'), /^image\/svg\+xml/);
    const id = await newPayment(s, m.key);
    const { page, context, failed } = await open(`/pay/${id}`);
    await page.fill('#cc-number', CARDS.challenge);
    await page.fill('#cc-exp', '12/34');
    await page.fill('#cc-cvc', CVC);
    await page.click('#pay-card');
    await page.waitForURL(/\/sandbox\/3ds\//);
    await page.click('#approve');
    await page.waitForSelector('#outcome');
    const link = await newLink(s, m.key, { amount: 4900, currency: 'RUB' });
    await page.goto(`${s.url}/link/${link.id}`);
    await page.waitForSelector('#pay-link');
    // The icon is asked for once per page load; wait until it was, so that a 404 would be seen.
    await page.waitForResponse((r) => /\/favicon\./.test(r.url()), { timeout: 15_000 }).catch(() => null);
    t.same(failed, [], 'no answer of 400 or more');
    const icon = await page.$eval('link[rel=icon]', (e) => (e as HTMLLinkElement).href);
    t.equal((await fetch(icon)).status, 200, 'the icon the pages name is there');
    await context.close();
  });
}

if (noBrowser) {
  t.plan(0, noBrowser);
} else {
  await run();
}

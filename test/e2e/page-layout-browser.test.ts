// The hosted page as a customer sees it, in en, ru and az at 320, 375 and 1280 px: nothing overflows
// sideways, the amount is written the language's way (Intl.NumberFormat, the currency's sign), the
// placeholders speak the language, the method tabs fill whole rows of two or three (never one
// alone, one width within a row, one height for all), and the saved-card tab shows
// only when the customer has a saved card, with the brand written properly. Screenshots of every
// case go to test/artifacts/layout-*.png.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { card, CARDS, newPayment } from '../helpers/checkout.js';
import { artifact, CHROMIUM, CHROMIUM_ARGS, noBrowser } from '../helpers/browser.js';

const LANGS = ['en', 'ru', 'az'] as const;
const WIDTHS = [320, 375, 1280];
/** 1234.56 as each language writes it (spaces of any kind read as one space). */
const AMOUNTS = {
  RUB: { en: '₽1,234.56', ru: '1 234,56 ₽', az: '1.234,56 ₽' },
  AZN: { en: '₼1,234.56', ru: '1 234,56 ₼', az: '1.234,56 ₼' },
};
const PAY = { en: 'Pay', ru: 'Оплатить', az: 'Ödə' };
const EXPIRY = { en: 'MM/YY', ru: 'ММ/ГГ', az: 'AA/İİ' };
interface Check { ok(v: unknown, m: string): void; same(a: unknown, b: unknown, m: string): void }
const spaces = (s: string | null) => (s ?? '').replace(/\s+/g, ' ').trim();

if (noBrowser) {
  t.plan(0, noBrowser);
} else {
  await run();
}

async function run() {
  const { chromium } = await import('playwright-core');
  const s = await startTestServer(t);
  const m = await s.merchant({ currencies: ['AZN', 'RUB'] });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  t.teardown(() => browser.close());
  type Page = Awaited<ReturnType<typeof browser.newPage>>;

  async function open(id: string, width: number, lang: string) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    await page.goto(`${s.url}/pay/${id}?lang=${lang}`);
    return page;
  }
  /** No sideways scrolling, and every element inside the viewport's width. */
  async function noOverflow(t: Check, page: Page, where: string) {
    const m = await page.evaluate(() => {
      const d = document.documentElement;
      // Past the viewport, or into the padding of the white box the element sits in.
      const wide = [...document.querySelectorAll('body *')].filter((e) => {
        const r = e.getBoundingClientRect();
        const boxEl = e.closest('.box');
        if (r.width === 0) return false;
        if (r.right > d.clientWidth + 0.5 || r.left < -0.5) return true;
        if (!boxEl || boxEl === e || e.closest('dialog') || getComputedStyle(e).transform !== 'none') return false; // a spinning spinner's box turns
        const b = boxEl.getBoundingClientRect();
        const cs = getComputedStyle(boxEl);
        return r.right > b.right - parseFloat(cs.paddingRight) + 0.5 || r.left < b.left + parseFloat(cs.paddingLeft) - 0.5;
      }).map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className} "${(e.textContent ?? '').slice(0, 20)}"`);
      return { scroll: d.scrollWidth, client: d.clientWidth, wide };
    });
    t.ok(m.scroll <= m.client, `${where}: scrollWidth ${m.scroll} <= clientWidth ${m.client}`);
    t.same(m.wide, [], `${where}: no element past the edge`);
  }

  /** The method tabs: rows of two or three spanning the list, one width within a row, one height, every label inside its tab. */
  async function checkTabs(t: Check, page: Page): Promise<string[]> {
    const tabs = await page.$$eval('[role=tab]', (els) => els.map((e) => {
      const r = e.getBoundingClientRect();
      return { id: e.id, y: r.y, w: r.width, h: r.height, left: r.left, right: r.right, fits: e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight };
    }));
    const spread = (v: number[]) => Math.max(...v) - Math.min(...v);
    t.ok(spread(tabs.map((x) => x.h)) <= 1, `tabs share one height: ${tabs.map((x) => Math.round(x.h)).join(', ')}`);
    t.ok(tabs.every((x) => x.fits), 'every tab label fits its tab');
    const rows = new Map<number, typeof tabs>();
    for (const x of tabs) rows.set(Math.round(x.y), [...(rows.get(Math.round(x.y)) ?? []), x]);
    const perRow = [...rows.values()];
    t.ok(perRow.every((r) => r.length >= 2 && r.length <= 3), `rows of two or three, never one alone: ${perRow.map((r) => r.length).join('/')}`);
    t.ok(perRow.every((r) => spread(r.map((x) => x.w)) <= 1), 'one width within a row');
    const [l, r] = [Math.min(...tabs.map((x) => x.left)), Math.max(...tabs.map((x) => x.right))];
    t.ok(perRow.every((row) => Math.abs(row[0].left - l) <= 1 && Math.abs(row[row.length - 1].right - r) <= 1), 'every row spans the list');
    return tabs.map((x) => x.id);
  }

  for (const lang of LANGS) {
    for (const width of WIDTHS) {
      t.test(`${lang} at ${width} px`, async (t) => {
        const id = await newPayment(s, m.key, { amount: 123456, currency: 'RUB', description: 'Green tea', customer: { email: `nobody-${lang}@shop.example` } });
        const page = await open(id, width, lang);
        t.equal(await page.getAttribute('html', 'lang'), lang);
        await noOverflow(t, page, `${lang} ${width}`);
        t.equal(spaces(await page.textContent('#amount')).replace(/^.*: /, ''), AMOUNTS.RUB[lang], 'the amount, written the language\'s way');
        t.equal(spaces(await page.textContent('#pay-card')), `${PAY[lang]} ${AMOUNTS.RUB[lang]}`);
        t.equal(await page.getAttribute('#cc-exp', 'placeholder'), EXPIRY[lang], 'the expiry placeholder');
        const tabs = await checkTabs(t, page);
        t.notOk(tabs.includes('tab-recurrent'), 'no saved-card tab without a saved card');
        t.ok(tabs.length >= 6, `${tabs.length} tabs`);
        await page.screenshot({ path: artifact(`layout-${lang}-${width}`), fullPage: true });
        await page.click('#tab-sbp');
        await page.click('#sbp-start');
        await page.waitForSelector('#sbp-qr:not([hidden])');
        await noOverflow(t, page, `${lang} ${width} with the SBP QR`);
        await page.screenshot({ path: artifact(`layout-${lang}-${width}-sbp`), fullPage: true });
        await page.close();
      });
    }
  }

  t.test('manat amounts in every language', async (t) => {
    for (const lang of LANGS) {
      const id = await newPayment(s, m.key, { amount: 123456, currency: 'AZN' });
      const page = await open(id, 1280, lang);
      t.equal(spaces(await page.textContent('#amount')).replace(/^.*: /, ''), AMOUNTS.AZN[lang], lang);
      if (lang === 'az') t.match(await page.textContent('.badge'), /^Test rejimi/, 'the az test badge');
      await page.close();
    }
  });

  t.test('the saved-card tab when the customer has one, with the brand written properly', async (t) => {
    const customer = { email: 'ann-saved@shop.example' };
    const first = await newPayment(s, m.key, { customer });
    const paid = await s.request('POST', `/checkout/${first}/pay`, { body: card(CARDS.mastercard) });
    t.equal(paid.body.status, 'succeeded', paid.text);
    const second = await newPayment(s, m.key, { customer, amount: 123456 });
    for (const width of WIDTHS) {
      const page = await open(second, width, 'ru');
      t.ok(await page.isVisible('#tab-recurrent'), 'the saved-card tab');
      await page.click('#tab-recurrent'); // its label is the longest, and bold when selected
      await checkTabs(t, page);
      t.equal(spaces(await page.textContent('#panel-recurrent label')), 'Mastercard •••• 4444');
      t.equal(spaces(await page.textContent('#pay-saved')), `Оплатить ${AMOUNTS.RUB.ru}`);
      await noOverflow(t, page, `saved card ${width}`);
      await page.screenshot({ path: artifact(`layout-ru-${width}-saved-card`), fullPage: true });
      await page.close();
    }
    const done = await open(first, 320, 'en');
    t.match(spaces(await done.textContent('#outcome')), /Paid with Mastercard •••• 4444/);
    await done.close();
  });

  t.test('the az 3-D Secure page: two answers with no word in common', async (t) => {
    const id = await newPayment(s, m.key, { locale: 'az' });
    const r = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.challenge) });
    const page = await browser.newPage({ viewport: { width: 320, height: 700 } });
    await page.goto(`${r.body.next_action.acs_url}?creq=${encodeURIComponent(r.body.next_action.creq)}`);
    const [pass, fail] = [spaces(await page.textContent('#approve')), spaces(await page.textContent('#decline'))];
    const words = (s: string) => new Set(s.toLocaleLowerCase('az').split(/[^\p{L}]+/u).filter(Boolean));
    t.same([...words(pass)].filter((w) => words(fail).has(w)), [], `no word in common: "${pass}" / "${fail}"`);
    t.match(await page.textContent('.badge'), /^Test rejimi/);
    t.equal(spaces(await page.textContent('.amount')), '49,00 ₽');
    await noOverflow(t, page, 'az ACS 320');
    await page.screenshot({ path: artifact('layout-az-320-3ds'), fullPage: true });
    await page.close();
  });
}

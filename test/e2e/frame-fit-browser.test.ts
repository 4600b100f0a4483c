// The embedded form's and the widget's frames follow their content's height, at 320, 375 and
// 1280 px: every control of the framed page (tabs, fields, buttons, links, an error under the Pay
// button, the widget's "Cancel and return to the store", the outcome) lies inside the visible frame,
// and the frame never scrolls. The height arrives by postMessage from the framed page; a forged
// height from the shop's own window is ignored. The merchant's site is a node:http server on another
// loopback port (another origin, on the merchant's allowed_domains).
import t from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Frame, Page } from 'playwright-core';
import { startTestServer } from '../helpers/server.js';
import { CARDS, CVC, newPayment } from '../helpers/checkout.js';
import { artifact, CHROMIUM, CHROMIUM_ARGS, noBrowser } from '../helpers/browser.js';
import { until } from '../helpers/wait.js';

const WIDTHS = [320, 375, 1280];
interface Check { ok(v: unknown, m: string): void; same(a: unknown, b: unknown, m: string): void }
const CSS = '<style>body{margin:0;font:16px sans-serif}h1{margin:8px}</style>';

const formHtml = (service: string, url: string) => `<!doctype html><meta name="viewport" content="width=device-width,initial-scale=1">${CSS}<h1>Shop</h1><div id="slot"></div>
<script>window.__outcomes=[];</script><script src="${service}/js/v1/checkout.js"></script>
<script>PaymentCheckout.mount('#slot',{url:${JSON.stringify(url)},onSuccess:function(p){__outcomes.push(p)},onFailure:function(p){__outcomes.push(p)}});</script>`;

const widgetHtml = (service: string, pk: string) => `<!doctype html><meta name="viewport" content="width=device-width,initial-scale=1">${CSS}<h1>Shop</h1><div id="slot"></div>
<script>window.__errors=[];</script><script src="${service}/widget/v1/widget.js"></script>
<script>new PaymentWidget({publishableKey:${JSON.stringify(pk)},amount:4900,currency:'RUB',initial_method:'card'}).mount('#slot').catch(function(e){__errors.push(String(e))});</script>`;

/** Controls of the framed page not wholly inside the frame's viewport, and how far the frame scrolls. */
async function outside(frame: Frame): Promise<{ out: string[]; scroll: number }> {
  return frame.evaluate(() => {
    const w = document.documentElement.clientWidth;
    const h = window.innerHeight;
    const out = [...document.querySelectorAll('button, input, a, [role=tab], .error, #outcome, #amount')].filter((e) => {
      const r = e.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) return false; // not shown
      return r.top < -0.5 || r.left < -0.5 || r.bottom > h + 0.5 || r.right > w + 0.5;
    }).map((e) => `${e.tagName.toLowerCase()}#${e.id} "${(e.textContent ?? '').trim().slice(0, 30)}" (bottom ${Math.round(e.getBoundingClientRect().bottom)} of ${h})`);
    return { out, scroll: document.documentElement.scrollHeight - h };
  });
}

async function run() {
  const { chromium } = await import('playwright-core');
  const s = await startTestServer(t, { PUBLIC_BASE_URL: 'http://127.0.0.1:0' });
  const service = new URL(s.srv.services.config.publicBaseUrl).origin;
  const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
  const pk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'publishable', mode: 'test' })).body.key as string;
  const shopServer = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const html = u.pathname === '/form' ? formHtml(service, u.searchParams.get('url')!) : u.pathname === '/widget' ? widgetHtml(service, pk) : null;
    res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(html ?? 'not found');
  });
  await new Promise<void>((resolve) => shopServer.listen(0, '127.0.0.1', resolve));
  const shop = `http://127.0.0.1:${(shopServer.address() as AddressInfo).port}`;
  t.teardown(() => shopServer.close());
  const set = await s.admin('PATCH', `/internal/merchants/${m.id}`, { allowed_domains: [shop] });
  if (set.status !== 200) throw new Error(`allowlist not set: ${set.text}`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  t.teardown(() => browser.close());

  const framed = (page: Page) => until('the framed page', () => page.frames().some((f) => f.url().startsWith(`${service}/`)), 15_000)
    .then(() => page.frames().find((f) => f.url().startsWith(`${service}/`))!);
  const frameHeight = (page: Page) => page.$eval('#slot iframe', (f) => f.getBoundingClientRect().height);

  /** Waits (with a deadline) for every control to be inside the frame, then asserts it, so a frame that never fits fails. */
  async function fits(t: Check, page: Page, frame: Frame, where: string) {
    await until(`${where}: every control inside the frame`, async () => {
      const o = await outside(frame);
      return o.out.length === 0 && o.scroll <= 0;
    }, 8_000).catch(() => { /* asserted just below, with what is outside */ });
    const o = await outside(frame);
    t.same(o.out, [], `${where}: every control inside the visible frame`);
    t.ok(o.scroll <= 0, `${where}: the frame does not scroll (content taller by ${o.scroll} px)`);
  }

  for (const width of WIDTHS) {
    t.test(`embedded form at ${width} px: the frame fits its content, with an error under the Pay button, then the outcome`, async (t) => {
      const id = await newPayment(s, m.key, { description: 'Green tea, two boxes' });
      const context = await browser.newContext({ viewport: { width, height: 700 } });
      const page = await context.newPage();
      await page.goto(`${shop}/form?${new URLSearchParams({ url: `${service}/pay/${id}` })}`);
      const frame = await framed(page);
      await frame.waitForSelector('#pay-card');
      await fits(t, page, frame, `${width} px, the form`);
      // A forged height from the shop's own window is not the frame's: ignored.
      const before = await frameHeight(page);
      // Messages to one window are dispatched in order: once the marker arrives, the forgery was handled.
      await page.evaluate((pid) => new Promise<void>((resolve) => {
        window.addEventListener('message', function marker(e) { if (e.data === 'marker') { window.removeEventListener('message', marker); resolve(); } });
        window.postMessage({ type: 'checkout.resize', payment_id: pid, height: 250 }, '*');
        window.postMessage('marker', '*');
      }), id);
      t.equal(await frameHeight(page), before, 'a height posted by the shop window itself is ignored');
      // An error under the Pay button (the server refuses a holder name with digits).
      await frame.fill('#cc-number', CARDS.success);
      await frame.fill('#cc-exp', '12/34');
      await frame.fill('#cc-cvc', CVC);
      await frame.fill('#cc-holder', 'R2 D2');
      await frame.click('#pay-card');
      await frame.waitForSelector('#error:not([hidden])');
      await fits(t, page, frame, `${width} px, with the error`);
      await page.screenshot({ path: artifact(`frame-fit-form-${width}-error`), fullPage: true });
      const tall = await frameHeight(page);
      await frame.fill('#cc-holder', '');
      await frame.click('#pay-card');
      await until('onSuccess', async () => (await page.evaluate(() => (window as unknown as { __outcomes: unknown[] }).__outcomes.length)) > 0);
      const done = await framed(page);
      await done.waitForSelector('#outcome');
      await fits(t, page, done, `${width} px, the outcome`);
      t.ok(await frameHeight(page) < tall, 'the frame shrank with its content');
      await page.screenshot({ path: artifact(`frame-fit-form-${width}-outcome`), fullPage: true });
      await context.close();
    });

    t.test(`widget at ${width} px: the frame fits its content, "Cancel and return to the store" included`, async (t) => {
      const context = await browser.newContext({ viewport: { width, height: 700 } });
      const page = await context.newPage();
      await page.goto(`${shop}/widget`);
      const frame = await framed(page);
      await frame.waitForSelector('#cancel-session');
      t.same(await page.evaluate(() => (window as unknown as { __errors: string[] }).__errors), []);
      await fits(t, page, frame, `${width} px, the widget`);
      await frame.click('#pay-card'); // empty fields: each says what is wrong
      await frame.waitForSelector('#cc-cvc-error:not([hidden])');
      await fits(t, page, frame, `${width} px, the widget with field errors`);
      await page.screenshot({ path: artifact(`frame-fit-widget-${width}`), fullPage: true });
      await context.close();
    });
  }
}

if (noBrowser) {
  t.plan(0, noBrowser);
} else {
  await run();
}

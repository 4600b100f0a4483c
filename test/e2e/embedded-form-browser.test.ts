// The embedded form in headless Chromium. A merchant site runs on other loopback ports (a tiny
// node:http server, two listeners = two origins): on the allowlisted origin mount() frames the
// hosted page, the customer pays with 4242 4242 4242 4242 and onSuccess fires once with payment_id
// and status, while forged postMessages (from a frame of another origin and from the shop's own
// window) are ignored; a declined card calls onFailure; a 3-D Secure challenge completes in the frame
// (in the language the customer chose); on an origin off the list the browser refuses the frame,
// and the script hides it and calls onFailure with the reason (the origin, allowed_domains), which
// the server's log says too.
// Then the dev-only /demo page: mount and redirect.
import t from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer } from '../helpers/server.js';
import { CARDS, CVC, newPayment } from '../helpers/checkout.js';
import { artifact, capturingLogger, CHROMIUM, CHROMIUM_ARGS, noBrowser } from '../helpers/browser.js';

if (noBrowser) {
  t.plan(0, noBrowser);
} else {
  await run();
}

/** The merchant's site: /shop mounts ?url= and records callbacks and raw messages; /evil forges. */
function shopHtml(service: string, checkoutUrl: string, forgeFrom: string | null, id: string): string {
  const forged = JSON.stringify({ type: 'checkout.outcome', payment_id: id, status: 'failed' });
  return `<!doctype html><title>Shop</title><h1>Shop</h1><div id="slot"></div>
${forgeFrom ? `<iframe id="evil" src="${forgeFrom}/evil?id=${encodeURIComponent(id)}"></iframe>` : ''}
<script>window.__outcomes=[];window.__messages=[];
window.addEventListener('message',function(e){window.__messages.push({origin:e.origin,data:e.data})});</script>
<script src="${service}/js/v1/checkout.js"></script>
<script>PaymentCheckout.mount('#slot',{url:${JSON.stringify(checkoutUrl)},
onSuccess:function(p){window.__outcomes.push(['success',p])},onFailure:function(p){window.__outcomes.push(['failure',p])}});
${forgeFrom ? `window.postMessage(${forged},'*');` : ''}</script>`;
}

const evilHtml = (id: string) => `<!doctype html><title>Evil</title><script>
parent.postMessage(${JSON.stringify({ type: 'checkout.outcome', payment_id: id, status: 'failed' })},'*');</script>`;

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function run() {
  const { chromium } = await import('playwright-core');
  // checkout_url on 127.0.0.1 (the real port replaces :0), so the browser needs no name lookup.
  const s = await startTestServer(t, { PUBLIC_BASE_URL: 'http://127.0.0.1:0' });
  const captured = capturingLogger();
  s.srv.services.log = captured.log as typeof s.srv.services.log;
  const service = new URL(s.srv.services.config.publicBaseUrl).origin;
  const m = await s.merchant({ currencies: ['AZN', 'RUB'] });

  const handler: http.RequestListener = (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const html = u.pathname === '/shop'
      ? shopHtml(service, u.searchParams.get('url')!, u.searchParams.get('forge'), u.searchParams.get('id')!)
      : u.pathname === '/evil' ? evilHtml(u.searchParams.get('id')!) : null;
    res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(html ?? 'not found');
  };
  const allowedServer = http.createServer(handler);
  const otherServer = http.createServer(handler);
  const allowed = await listen(allowedServer);
  const other = await listen(otherServer);
  t.teardown(() => { allowedServer.close(); otherServer.close(); });
  const set = await s.admin('PATCH', `/internal/merchants/${m.id}`, { allowed_domains: [allowed] });
  if (set.status !== 200) throw new Error(`allowlist not set: ${set.text}`);

  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  t.teardown(() => browser.close());

  async function shop(origin: string, id: string, forge: string | null) {
    const context = await browser.newContext({ viewport: { width: 800, height: 1000 } });
    const page = await context.newPage();
    const console: string[] = [];
    page.on('console', (msg) => console.push(msg.text()));
    const q = new URLSearchParams({ url: `${service}/pay/${id}`, id, ...(forge ? { forge } : {}) });
    await page.goto(`${origin}/shop?${q}`);
    return { page, context, console };
  }
  const outcomes = (page: import('playwright-core').Page) => page.evaluate(() => (window as unknown as { __outcomes: unknown[] }).__outcomes);

  t.test('allowed origin: mount, pay with a test card, onSuccess once; forged messages ignored', async (t) => {
    const id = await newPayment(s, m.key, { description: 'Embedded tea' });
    const { page, context } = await shop(allowed, id, other);
    // Both forgeries (another origin's frame, and the shop's own window) have reached the page...
    const outcomeMessages = () => (window as unknown as { __messages: { origin: string; data: { type?: string } }[] }).__messages.filter((x) => x.data?.type === 'checkout.outcome');
    await page.waitForFunction(`(${outcomeMessages})().length >= 2`, null, { timeout: 15_000 });
    const msgs = await page.evaluate(`(${outcomeMessages})().map((x) => x.origin)`) as string[];
    t.same(msgs.sort(), [allowed, other].sort(), 'the forged messages came from the shop and the other origin');
    t.same(await outcomes(page), [], '...and neither fired a callback');

    const frame = page.frameLocator('#slot iframe');
    await frame.locator('#cc-number').fill(CARDS.success.replace(/(\d{4})(?=\d)/g, '$1 '));
    await frame.locator('#cc-exp').fill('12/34');
    await frame.locator('#cc-cvc').fill(CVC);
    await frame.locator('#pay-card').click();
    await page.waitForFunction(() => (window as unknown as { __outcomes: unknown[] }).__outcomes.length > 0, null, { timeout: 20_000 });
    t.same(await outcomes(page), [['success', { payment_id: id, status: 'succeeded' }]], 'onSuccess with payment_id and status');
    await frame.locator('#outcome[data-status="succeeded"]').waitFor();
    t.notOk(await frame.locator('#return').count(), 'no return link without return_url');
    const real = await page.evaluate(() => (window as unknown as { __messages: { origin: string; data: unknown }[] }).__messages
      .filter((x) => x.origin !== location.origin && (x.data as { status?: string }).status === 'succeeded'));
    t.same(real, [{ origin: service, data: { type: 'checkout.outcome', payment_id: id, status: 'succeeded' } }], 'one message, from the service origin');
    const p = await s.request('GET', `/api/v2/payments/${id}`, { key: m.key });
    t.equal(p.body.status, 'succeeded');
    await page.screenshot({ path: artifact('embedded-form-success'), fullPage: true });
    await context.close();
  });

  t.test('allowed origin: a declined card calls onFailure with the status', async (t) => {
    const id = await newPayment(s, m.key);
    const { page, context } = await shop(allowed, id, null);
    const frame = page.frameLocator('#slot iframe');
    await frame.locator('#cc-number').fill(CARDS.insufficient);
    await frame.locator('#cc-exp').fill('12/34');
    await frame.locator('#cc-cvc').fill(CVC);
    await frame.locator('#pay-card').click();
    await page.waitForFunction(() => (window as unknown as { __outcomes: unknown[] }).__outcomes.length > 0, null, { timeout: 20_000 });
    t.same(await outcomes(page), [['failure', { payment_id: id, status: 'failed' }]]);
    await context.close();
  });

  t.test('allowed origin: a 3-D Secure challenge runs inside the frame, in the chosen language, and onSuccess fires', async (t) => {
    const id = await newPayment(s, m.key, { locale: 'en' });
    const { page, context } = await shop(allowed, id, null);
    await page.frameLocator('#slot iframe').locator('a[hreflang="ru"]').click(); // the customer picks Russian
    await page.frameLocator('#slot iframe').locator('html[lang="ru"]').waitFor();
    const frame = page.frameLocator('#slot iframe');
    await frame.locator('#cc-number').fill(CARDS.challenge);
    await frame.locator('#cc-exp').fill('12/34');
    await frame.locator('#cc-cvc').fill(CVC);
    await frame.locator('#pay-card').click();
    await frame.locator('html[lang="ru"] #approve').click(); // the sandbox ACS, framed under the same allowlist, in Russian
    await page.waitForFunction(() => (window as unknown as { __outcomes: unknown[] }).__outcomes.length > 0, null, { timeout: 20_000 });
    t.same(await outcomes(page), [['success', { payment_id: id, status: 'succeeded' }]]);
    const url = page.frames().find((f) => f !== page.mainFrame())!.url();
    t.equal(url, `${service}/pay/${id}?lang=ru&origin=${encodeURIComponent(allowed)}`, 'back on the hosted page, still knowing its parent and the language');
    await frame.locator('html[lang="ru"] #outcome[data-status="succeeded"]').waitFor();
    await context.close();
  });

  t.test('an origin off the list cannot frame the page: onFailure says why, the frame is hidden, the log says why', async (t) => {
    const id = await newPayment(s, m.key);
    const context = await browser.newContext();
    const page = await context.newPage();
    const consoleLines: string[] = [];
    page.on('console', (msg) => consoleLines.push(msg.text()));
    const refused = page.waitForEvent('console', { predicate: (msg) => /frame-ancestors/.test(msg.text()), timeout: 15_000 });
    await page.goto(`${other}/shop?${new URLSearchParams({ url: `${service}/pay/${id}`, id })}`);
    const text = (await refused).text();
    t.match(text, `frame-ancestors ${allowed}`, 'the browser checked the allowlist...');
    t.match(text, /blocked|Refused to frame/, '...and refused the frame');
    await page.waitForFunction(() => (window as unknown as { __outcomes: unknown[] }).__outcomes.length > 0, null, { timeout: 15_000 });
    const got = await outcomes(page) as [string, { payment_id: string; status: null; error: { code: string; message: string } }][];
    t.equal(got.length, 1, 'one callback');
    t.equal(got[0][0], 'failure', 'onFailure');
    t.match(got[0][1], { payment_id: id, status: null, error: { code: 'ORIGIN_NOT_ALLOWED' } });
    t.match(got[0][1].error.message, other, 'the reason names this page\'s origin...');
    t.match(got[0][1].error.message, /allowed_domains/, '...and the list it is missing from');
    t.ok(consoleLines.some((l) => l.startsWith('PaymentCheckout: ') && l.includes(other)), 'the developer console says it too');
    t.equal(await page.$eval('#slot iframe', (f) => getComputedStyle(f).display), 'none', 'no broken frame left on the page');
    const logged = captured.lines.filter((l) => l.includes(other) && l.includes('allowed_domains') && l.includes(m.id));
    t.ok(logged.length >= 1, 'the server log says why');
    // The payment is then paid elsewhere: the blocked frame has nothing more to report.
    const pay = await s.request('POST', `/checkout/${id}/pay`, { body: { number: CARDS.success, exp_month: '12', exp_year: '34', cvc: CVC } });
    t.equal(pay.body.status, 'succeeded', pay.text);
    t.equal((await outcomes(page)).length, 1);
    await context.close();
  });

  t.test('/demo: mount pays in a frame, redirect opens the hosted page', async (t) => {
    const d = await startTestServer(t, { PUBLIC_BASE_URL: 'http://127.0.0.1:0', DEMO_MERCHANT: '1' });
    const base = d.srv.services.config.publicBaseUrl;
    const context = await browser.newContext({ viewport: { width: 800, height: 1100 } });
    const page = await context.newPage();
    const csp: string[] = [];
    page.on('console', (msg) => { if (/Content Security Policy|Refused to/i.test(msg.text())) csp.push(msg.text()); });
    await page.goto(`${base}/demo`);
    await page.click('#embed');
    await page.waitForFunction(() => document.querySelector('#checkout iframe') || document.getElementById('result')?.textContent, null, { timeout: 15_000 });
    t.equal(await page.textContent('#result'), '', 'no error creating the demo payment');
    const frame = page.frameLocator('#checkout iframe');
    await frame.locator('#cc-number').fill('4242 4242 4242 4242');
    await frame.locator('#cc-exp').fill('12/34');
    await frame.locator('#cc-cvc').fill(CVC);
    await frame.locator('#pay-card').click();
    await page.waitForFunction(() => /onSuccess/.test(document.getElementById('result')?.textContent ?? ''), null, { timeout: 20_000 });
    t.match(await page.textContent('#result'), /onSuccess \{"payment_id":"[^"]+","status":"succeeded"\}/);
    await page.screenshot({ path: artifact('demo-embedded'), fullPage: true });
    await page.click('#redirect');
    await page.waitForURL(new RegExp(`^${base.replace(/[.]/g, '\\.')}/pay/`));
    t.ok(await page.isVisible('#cc-number'), 'the hosted page, top level');
    t.same(csp, [], 'no CSP violation on the demo and the framed page');
    await context.close();
  });
}

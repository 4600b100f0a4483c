// The payment widget in headless Chromium. A merchant's demo page runs on another loopback port
// (a second origin, on the merchant's allowed_domains): it loads /widget/v1/widget.js, creates a
// session through POST /widget/v1/session (a cross-origin call with a CORS preflight), mounts the
// hosted page in an iframe, the customer pays with a test card inside the frame, and the page
// receives the outcome by postMessage from the service's origin. From an origin off the list the
// request is refused and nothing is created: mount rejects and onFailure is called with the
// service's reason (the origin, allowed_domains), not a bare "Failed to fetch", and the log says why.
import t from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer } from '../helpers/server.js';
import { CARDS, CVC } from '../helpers/checkout.js';
import { artifact, capturingLogger, CHROMIUM, CHROMIUM_ARGS, noBrowser } from '../helpers/browser.js';

if (noBrowser) {
  t.plan(0, noBrowser);
} else {
  await run();
}

const demoHtml = (service: string, pk: string) => `<!doctype html><title>Demo shop</title><h1>Demo shop</h1><div id="slot"></div>
<script>window.__outcomes=[];window.__messages=[];window.__errors=[];
window.addEventListener('message',function(e){window.__messages.push({origin:e.origin,data:e.data})});</script>
<script src="${service}/widget/v1/widget.js"></script>
<script>var w=new PaymentWidget({publishableKey:${JSON.stringify(pk)},amount:4900,currency:'RUB',initial_method:'card',
onSuccess:function(o){window.__outcomes.push(['success',o])},onFailure:function(o){window.__outcomes.push(['failure',o])}});
w.mount('#slot').then(function(s){window.__session=s},function(e){window.__errors.push(String(e))});</script>`;

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function run() {
  const { chromium } = await import('playwright-core');
  const s = await startTestServer(t, { PUBLIC_BASE_URL: 'http://127.0.0.1:0' });
  const captured = capturingLogger();
  s.srv.services.log = captured.log as typeof s.srv.services.log;
  const service = new URL(s.srv.services.config.publicBaseUrl).origin;
  const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
  const pk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'publishable', mode: 'test' })).body.key as string;
  const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;

  const handler: http.RequestListener = (req, res) => {
    const ok = (req.url ?? '').startsWith('/demo');
    res.writeHead(ok ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(ok ? demoHtml(service, pk) : 'not found');
  };
  const shopServer = http.createServer(handler);
  const otherServer = http.createServer(handler);
  const shop = await listen(shopServer);
  const other = await listen(otherServer);
  t.teardown(() => { shopServer.close(); otherServer.close(); });
  const set = await s.admin('PATCH', `/internal/merchants/${m.id}`, { allowed_domains: [shop] });
  if (set.status !== 200) throw new Error(`allowlist not set: ${set.text}`);

  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  t.teardown(() => browser.close());
  type W = { __outcomes: unknown[]; __messages: { origin: string; data: unknown }[]; __errors: string[]; __session?: { session_id: string } };

  t.test('on the allowed origin: a session, the hosted page in the frame, a test card, the outcome by postMessage', async (t) => {
    const context = await browser.newContext({ viewport: { width: 800, height: 1000 } });
    const page = await context.newPage();
    await page.goto(`${shop}/demo`);
    await page.waitForFunction(() => !!(window as unknown as W).__session || (window as unknown as W).__errors.length > 0, null, { timeout: 20_000 });
    t.same(await page.evaluate(() => (window as unknown as W).__errors), [], 'mount resolved');
    const session = (await page.evaluate(() => (window as unknown as W).__session))!;
    t.match(session.session_id, /^cs_/);
    const frameSrc = await page.locator('#slot iframe').getAttribute('src');
    t.equal(frameSrc, `${service}/pay/${session.session_id}?origin=${encodeURIComponent(shop)}`, 'the checkout_url with this page\'s origin');
    t.equal(await page.locator('input').count(), 0, 'no card field on the merchant page itself');
    const frame = page.frameLocator('#slot iframe');
    await frame.locator('#tab-card[aria-selected="true"]').waitFor();
    await frame.locator('#cc-number').fill(CARDS.success.replace(/(\d{4})(?=\d)/g, '$1 '));
    await frame.locator('#cc-exp').fill('12/34');
    await frame.locator('#cc-cvc').fill(CVC);
    await frame.locator('#pay-card').click();
    await page.waitForFunction(() => (window as unknown as W).__outcomes.length > 0, null, { timeout: 20_000 });
    t.same(await page.evaluate(() => (window as unknown as W).__outcomes), [['success', { session_id: session.session_id, status: 'succeeded' }]]);
    const real = await page.evaluate(() => (window as unknown as W).__messages.filter((x) => x.origin !== location.origin && (x.data as { type?: string }).type === 'checkout.outcome'));
    t.same(real, [{ origin: service, data: { type: 'checkout.outcome', payment_id: session.session_id, status: 'succeeded' } }], 'one message, from the service origin, to this origin');
    const got = await s.request('GET', `/v2/payments/checkout/${session.session_id}`, { key: sk });
    t.match(got.body, { status: 'succeeded', selected_method_code: 'card' });
    await page.screenshot({ path: artifact('widget-success'), fullPage: true });
    await context.close();
  });

  t.test('on an origin off the list: the request is refused, mount rejects and onFailure says why, nothing is created', async (t) => {
    const before = (await s.db.query('SELECT count(*)::int AS n FROM payments WHERE merchant_id = $1', [m.id])).rows[0].n;
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${other}/demo`);
    await page.waitForFunction(() => (window as unknown as W).__errors.length > 0 || !!(window as unknown as W).__session, null, { timeout: 20_000 });
    t.equal(await page.evaluate(() => (window as unknown as W).__session ?? null), null, 'no session');
    const errors = await page.evaluate(() => (window as unknown as W).__errors);
    t.equal(errors.length, 1, 'mount rejected');
    t.match(errors[0], /ORIGIN_NOT_ALLOWED/, `with the service's reason: ${errors[0]}`);
    t.match(errors[0], other, 'naming this page\'s origin');
    t.notMatch(errors[0], /Failed to fetch/);
    const failed = await page.evaluate(() => (window as unknown as W).__outcomes) as [string, { session_id: null; status: null; error: { code: string; message: string } }][];
    t.equal(failed.length, 1);
    t.equal(failed[0][0], 'failure', 'onFailure');
    t.match(failed[0][1], { session_id: null, status: null, error: { code: 'ORIGIN_NOT_ALLOWED' } });
    t.match(failed[0][1].error.message, /allowed_domains/, 'the reason names allowed_domains');
    t.match(failed[0][1].error.message, other, '...and the origin');
    t.ok(captured.lines.some((l) => l.includes(other) && l.includes('allowed_domains') && l.includes(m.id)), 'the server log says why');
    t.equal(await page.locator('iframe').count(), 0, 'no frame');
    t.equal((await s.db.query('SELECT count(*)::int AS n FROM payments WHERE merchant_id = $1', [m.id])).rows[0].n, before);
    await context.close();
  });
}

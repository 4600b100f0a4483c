// GET / and the API reference in a real browser: the home page links the reference, the OpenAPI
// document, the docs and the demo shop; the reference (Swagger UI served from our own origin)
// renders operations of both APIs; every request either page makes goes to the server's own
// loopback origin (the reference: to its own origin), and the CSP refuses nothing. `/` shadows no other route.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { artifact, CHROMIUM, CHROMIUM_ARGS, noBrowser } from '../helpers/browser.js';

if (noBrowser) {
  t.plan(0, noBrowser);
} else {
  await run();
}

async function run() {
  const { chromium } = await import('playwright-core');
  const s = await startTestServer(t, { DEMO_MERCHANT: '1' });
  const origin = new URL(s.url).origin;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  t.teardown(() => browser.close());

  const LOOPBACK = /^(127\.0\.0\.1|localhost|\[::1\])$/;
  /** A page whose every request is recorded; one to a host off this machine is refused and kept. */
  async function watchedPage() {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const requests: string[] = [];
    const elsewhere: string[] = [];
    const refused: string[] = [];
    const failed: string[] = [];
    await context.route((url) => !LOOPBACK.test(url.hostname), (route) => { elsewhere.push(route.request().url()); return route.abort(); });
    const page = await context.newPage();
    page.on('request', (r) => requests.push(r.url()));
    page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
    page.on('console', (m) => { if (/Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text()); });
    page.on('pageerror', (e) => refused.push(`page error: ${e.message}`));
    return { context, page, requests, elsewhere, refused, failed };
  }

  t.test('the home page links the reference, the OpenAPI document, the docs and the demo shop', async (t) => {
    const w = await watchedPage();
    const r = await w.page.goto(`${s.url}/`);
    t.equal(r?.status(), 200);
    t.match(r?.headers()['content-security-policy'], /default-src 'none'/);
    t.equal(await w.page.textContent('h1'), 'Payments engine');
    const hrefs = await w.page.$$eval('a', (as) => as.map((a) => a.getAttribute('href')));
    for (const h of ['/reference', '/openapi.json', '/demo', '/docs/webhooks.md', '/docs/errors.md', '/docs/operations.md']) t.ok(hrefs.includes(h), `links ${h}`);
    await w.page.screenshot({ path: artifact('home-page'), fullPage: true });

    await w.page.click('a[href="/docs/webhooks.md"]');
    t.match(await w.page.textContent('body'), /^# Webhooks/, 'a doc opens, as written');
    await w.page.goBack();
    await w.page.click('#demo');
    t.match(await w.page.textContent('h1'), /demo shop/, 'the demo shop opens');
    t.same(w.elsewhere, [], 'no request off this machine');
    t.same(w.refused, [], 'the CSP refused nothing');
    t.same(w.failed, [], 'no failed request');
    await w.context.close();
  });

  t.test('the reference renders both APIs from our own origin only', async (t) => {
    const w = await watchedPage();
    await w.page.goto(`${s.url}/`);
    await w.page.click('#reference');
    await w.page.waitForURL(/\/reference$/);
    await w.page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
    const paths = await w.page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path')));
    for (const p of ['/payments', '/payments/{id}/refunds', '/links']) t.ok(paths.includes(p), `merchant API: ${p}`);
    for (const p of ['/v2/payments/checkout', '/v1/channels/{id}/pause', '/v2/payouts']) t.ok(paths.includes(p), `gateway API: ${p}`);
    const text = await w.page.textContent('#reference');
    t.match(text, /Create a payment link/, 'summaries are shown');
    await w.page.click('.opblock-summary-path[data-path="/v2/payouts"]');
    await w.page.waitForSelector('.opblock.is-open .parameters-container, .opblock.is-open .opblock-section', { timeout: 10_000 });
    t.notOk(await w.page.$('.try-out__btn'), 'read-only: no "Try it out"');
    await w.page.screenshot({ path: artifact('api-reference'), fullPage: false });

    const own = w.requests.filter((u) => new URL(u).origin === origin);
    t.ok(own.some((u) => u.endsWith('/reference/assets/swagger-ui-bundle.js')), 'the renderer came from our origin');
    t.ok(own.some((u) => u.endsWith('/openapi.json')), 'and the document');
    t.same(w.requests.filter((u) => new URL(u).origin !== origin), [], 'every request to the server\'s own origin');
    t.same(w.elsewhere, [], 'nothing off this machine (fonts, CDNs, validators)');
    t.same(w.refused, [], 'the CSP refused nothing');
    t.same(w.failed, [], 'no failed request');
    await w.context.close();
  });

  t.test('the reference page\'s CSP names our origin only', async (t) => {
    const r = await fetch(`${s.url}/reference`);
    t.equal(r.status, 200);
    const csp = r.headers.get('content-security-policy') ?? '';
    t.match(csp, /default-src 'none'/);
    t.match(csp, /script-src 'self';/);
    t.notMatch(csp, /unsafe-|https?:|\*/, 'no unsafe-inline/eval, no other origin, no wildcard');
    t.equal(r.headers.get('x-frame-options'), 'DENY');
    const js = await fetch(`${s.url}/reference/assets/swagger-ui-bundle.js`);
    t.equal(js.status, 200);
    t.match(js.headers.get('content-type'), /^text\/javascript/);
    t.equal((await fetch(`${s.url}/reference/assets/index.html`)).status, 404, 'only the files the page loads');
  });

  t.test('/ shadows nothing; docs are a fixed list', async (t) => {
    const unknown = await s.request('GET', '/nope');
    t.equal(unknown.status, 404);
    t.equal(unknown.body.error.code, 'ROUTE_NOT_FOUND');
    const merchant404 = await s.request('GET', '/api/v2/nope');
    t.equal(merchant404.status, 404);
    t.equal((await s.request('GET', '/v2/health')).status, 200);
    t.equal((await s.request('GET', '/openapi.json')).status, 200);
    const post = await s.request('POST', '/', { body: {} });
    t.equal(post.status, 405);
    t.equal(post.headers.get('allow'), 'GET');
    for (const p of ['/docs/..%2Fpackage.json', '/docs/nope.md', '/docs/README', '/docs/']) {
      const r = await s.request('GET', p);
      t.equal(r.status, 404, `${p} is not served`);
    }
    const doc = await fetch(`${s.url}/docs/errors.md`);
    t.equal(doc.status, 200);
    t.match(doc.headers.get('content-type'), /^text\/plain; charset=utf-8/);
    t.match(await doc.text(), /^# /);
  });
}

// The QR codes as a customer's phone would see them: Chromium shows the SBP QR of the hosted page
// and the QR of a static payment link, the image is drawn into a canvas, and an independent decoder
// (jsQR) reads the pixels back to the exact payload.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { newPayment } from '../helpers/checkout.js';
import { newLink } from '../helpers/links.js';
import { artifact, CHROMIUM, CHROMIUM_ARGS, noBrowser } from '../helpers/browser.js';
import { decodeQr } from '../helpers/qr-decode.js';

if (noBrowser) {
  t.plan(0, noBrowser);
} else {
  await run();
}

async function run() {
  const { chromium } = await import('playwright-core');
  const s = await startTestServer(t);
  const m = await s.merchant({ currencies: ['RUB'] });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  t.teardown(() => browser.close());
  type Page = Awaited<ReturnType<typeof browser.newPage>>;

  /** The pixels of an <img> as the browser draws it (400 px square, white behind), decoded. */
  async function decodeImage(page: Page, selector: string): Promise<string | null> {
    await page.waitForFunction((sel) => { const i = document.querySelector(sel) as HTMLImageElement | null; return !!i && i.complete && i.naturalWidth > 0; }, selector);
    const px = await page.evaluate((sel) => {
      const img = document.querySelector(sel) as HTMLImageElement;
      const c = document.createElement('canvas');
      c.width = c.height = 400;
      const g = c.getContext('2d')!;
      g.fillStyle = '#fff';
      g.fillRect(0, 0, 400, 400);
      g.drawImage(img, 0, 0, 400, 400);
      return Array.from(g.getImageData(0, 0, 400, 400).data);
    }, selector);
    return decodeQr(Uint8ClampedArray.from(px), 400, 400)?.data ?? null;
  }

  t.test('the SBP QR on the hosted page decodes to the payload of next_action', async (t) => {
    const id = await newPayment(s, m.key);
    const page = await browser.newPage({ viewport: { width: 800, height: 900 } });
    await page.goto(`${s.url}/pay/${id}`);
    await page.click('#tab-sbp');
    await page.click('#sbp-start');
    await page.waitForSelector('#sbp-qr:not([hidden])');
    await page.screenshot({ path: artifact('qr-sbp-decoded'), fullPage: true });
    const st = await s.request('GET', `/checkout/${id}/status`);
    const payload = st.body.next_action?.qr_raw_payload as string;
    t.ok(payload, 'the status read carries the raw payload');
    t.equal(await decodeImage(page, '#qr-img'), payload, 'jsQR reads the exact payload');
    await page.close();
  });

  t.test("a static link's QR decodes to the link's URL", async (t) => {
    const l = await newLink(s, m.key, { type: 'static', amount: 4900, currency: 'RUB', description: 'Tea' });
    const page = await browser.newPage({ viewport: { width: 800, height: 900 } });
    await page.goto(`${s.url}/link/${l.id}`);
    t.equal(await decodeImage(page, '#link-qr'), l.url);
    await page.close();
  });
}

// The QR code the pages show: the SVG's modules, read back into pixels, decode with an independent
// decoder (jsQR) to the exact payload, ASCII and UTF-8 alike; too long a payload gives null.
// (test/e2e/qr-decode-browser.test.ts decodes the image as a browser draws it.)
import t from 'tap';
import { decodeQr } from '../helpers/qr-decode.js';
import { qrSvgDataUrl } from '../../src/domain/qr.js';

/** The SVG of a data URL drawn into RGBA pixels, `scale` pixels a module. */
function rasterize(url: string, scale = 4): { data: Uint8ClampedArray; width: number; height: number; modules: number } {
  const svg = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64').toString();
  const n = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)![1]);
  const width = n * scale;
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  for (const [, x, y, run] of svg.matchAll(/M(\d+),(\d+)h(\d+)v1h-\3z/g)) {
    for (let py = Number(y) * scale; py < (Number(y) + 1) * scale; py++) {
      for (let px = Number(x) * scale; px < (Number(x) + Number(run)) * scale; px++) data.fill(0, (py * width + px) * 4, (py * width + px) * 4 + 3);
    }
  }
  return { data, width, height: width, modules: n - 8 };
}

const payloads = [
  'hello',
  'https://qr.nspk.ru/AS1000670LSS7DN18SJQDNP4B05KLJL2?type=01&bank=100000000111&sum=4900&cur=RUB&crc=AB75',
  'http://127.0.0.1:8080/sandbox/sbp/EXZ-20261121-AAAAAAAAAA?ref=sbx_sbp_0123456789abcdef',
  'Оплата заказа №42 · Ödəniş ₼',
  'x'.repeat(600),
];

for (const text of payloads) {
  t.test(`decodes back to the payload (${text.length} chars)`, async (t) => {
    const url = qrSvgDataUrl(text);
    t.match(url, /^data:image\/svg\+xml;base64,/);
    const img = rasterize(url!);
    t.ok(img.modules >= 21 && (img.modules - 17) % 4 === 0, `a QR size (${img.modules} modules)`);
    const code = decodeQr(img.data, img.width, img.height);
    t.ok(code, 'jsQR finds a code');
    t.equal(code?.data, text, 'the exact payload');
  });
}

t.test('size grows with the payload; past version 40, null', async (t) => {
  t.equal(rasterize(qrSvgDataUrl('hello')!).modules, 21);
  t.ok(rasterize(qrSvgDataUrl('x'.repeat(300))!).modules > 41);
  t.equal(qrSvgDataUrl('x'.repeat(3000)), null);
});

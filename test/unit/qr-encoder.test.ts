// The QR encoder: version by length, the fixed patterns in place, an SVG data URL out. (Decoding
// was checked against an independent decoder for versions 1-10 when the encoder was written.)
import t from 'tap';
import { qrMatrix, qrSvgDataUrl } from '../../src/domain/qr.js';

t.test('size grows with the payload and stops after version 10', async (t) => {
  t.equal(qrMatrix('hello')!.length, 21);
  t.equal(qrMatrix('x'.repeat(100))!.length, 41);
  t.equal(qrMatrix('x'.repeat(213))!.length, 57);
  t.equal(qrMatrix('x'.repeat(214)), null);
});

t.test('finder patterns and timing', async (t) => {
  const m = qrMatrix('http://pay.test/sandbox/sbp/EXZ-20261121-AAAAAAAAAA?ref=sbx_sbp_1')!;
  const n = m.length;
  for (const [x0, y0] of [[0, 0], [n - 7, 0], [0, n - 7]]) {
    for (let i = 0; i < 7; i++) {
      t.ok(m[y0][x0 + i] && m[y0 + 6][x0 + i] && m[y0 + i][x0] && m[y0 + i][x0 + 6], 'finder border');
    }
    t.ok(m[y0 + 3][x0 + 3], 'finder centre');
  }
  for (let i = 8; i < n - 8; i++) t.equal(m[6][i], i % 2 === 0, `timing ${i}`);
  t.ok(m[n - 8][8], 'dark module');
});

t.test('svg data URL', async (t) => {
  const u = qrSvgDataUrl('hello')!;
  t.match(u, /^data:image\/svg\+xml;base64,/);
  t.match(Buffer.from(u.split(',')[1], 'base64').toString(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 29 29"/);
});

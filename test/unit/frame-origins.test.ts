// The framing allowlist rules (src/domain/frame-origins.ts): canonical origins only, the parent
// origin accepted only when listed.
import t from 'tap';
import { allowedParent, checkFrameOrigin, checkFrameOrigins, MAX_ALLOWED_DOMAINS } from '../../src/domain/frame-origins.js';

t.test('canonical form', async (t) => {
  const ok: [string, string][] = [
    ['https://shop.example', 'https://shop.example'],
    ['HTTPS://Shop.EXAMPLE', 'https://shop.example'],
    ['https://shop.example:443', 'https://shop.example'],
    ['https://shop.example:8443', 'https://shop.example:8443'],
    ['http://localhost:3000', 'http://localhost:3000'],
    ['http://127.0.0.1', 'http://127.0.0.1'],
    ['https://xn--80ak6aa92e.example', 'https://xn--80ak6aa92e.example'],
  ];
  for (const [input, origin] of ok) t.same(checkFrameOrigin(input), { ok: true, origin }, input);
});

t.test('refused', async (t) => {
  for (const input of ['*', 'https://*', 'https://*.shop.example', 'https:', 'https://', '//shop.example', 'shop.example',
    'https://shop.example/', 'https://shop.example/a', 'https://shop.example#x', 'https://a@shop.example', 'http://shop.example',
    'http://10.0.0.1', 'ws://shop.example', 'https://shop..example', 'https://-shop.example', 'https://shop.example:0',
    'https://shop.example:65536', 'https://[::1]', "https://a.example 'self'", 'https://шоп.example', '']) {
    t.equal(checkFrameOrigin(input).ok, false, JSON.stringify(input));
  }
});

t.test('the list: deduplicated, bounded, the first bad index named', async (t) => {
  t.same(checkFrameOrigins(['https://a.example', 'https://A.example:443']), { ok: true, origins: ['https://a.example'] });
  t.match(checkFrameOrigins(['https://a.example', '*']), { ok: false, index: 1 });
  t.match(checkFrameOrigins(Array.from({ length: MAX_ALLOWED_DOMAINS + 1 }, (_, i) => `https://s${i}.example`)), { ok: false, index: null });
  t.equal(checkFrameOrigins(Array.from({ length: MAX_ALLOWED_DOMAINS }, (_, i) => `https://s${i}.example`)).ok, true);
});

t.test('the parent origin', async (t) => {
  const list = ['https://shop.example', 'http://127.0.0.1:5173'];
  t.equal(allowedParent('https://shop.example', list), 'https://shop.example');
  t.equal(allowedParent('https://SHOP.example:443', list), 'https://shop.example');
  t.equal(allowedParent('https://evil.example', list), null);
  t.equal(allowedParent('https://shop.example.evil.example', list), null);
  t.equal(allowedParent('https://shop.example/', list), null);
  t.equal(allowedParent(null, list), null);
  t.equal(allowedParent('https://shop.example', []), null);
});

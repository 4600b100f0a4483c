// Both APIs, byte by byte over a socket: a header value with non-ASCII bytes in Idempotency-Key is
// refused with 400 on every keyed create (docs/operations.md, framing table), and a request line or
// header block over uWS's limit. Raw bytes with node:net, since fetch would refuse to send them.
import t from 'tap';
import net from 'node:net';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const port = Number(new URL(s.url).port);
const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;

/** Sends the bytes, collects the answer until the server closes (or `waitMs`). */
function exchange(bytes: Buffer, waitMs: number): Promise<{ out: string; closed: boolean; error: string | null }> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let out = '';
    let done = false;
    let error: string | null = null;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve({ out, closed, error });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    sock.on('data', (d) => { out += d.toString('latin1'); });
    sock.on('error', (e: NodeJS.ErrnoException) => { error = e.code ?? e.message; finish(true); });
    sock.on('close', () => finish(true));
    sock.write(bytes);
  });
}

const raw = (head: string, body: string) => Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body, 'utf8')]);

const keyed = (method: string, path: string, key: string, idemKey: string, body = '{}') =>
  raw(`${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nIdempotency-Key: ${idemKey}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`, body);

t.test('docs/operations.md: "non-ASCII bytes in header values … `Idempotency-Key` refused with 400", on every POST of both APIs', async (t) => {
  const paid = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100 } });
  const session = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 4900, currency: 'RUB' } });
  const routes: [string, string, string][] = [
    ['/api/v2/payments', m.key, JSON.stringify({ amount: 100 })],
    [`/api/v2/payments/${paid.body.id}/refunds`, m.key, '{}'],
    ['/api/v2/links', m.key, JSON.stringify({ type: 'static', amount: 100 })],
    ['/v2/payments/checkout', sk, JSON.stringify({ amount: 4900, currency: 'RUB' })],
    ['/widget/v1/session', sk, JSON.stringify({ amount: 4900, currency: 'RUB' })],
    ['/v2/payments', sk, JSON.stringify({ amount: 4900, currency: 'RUB', payment_method: 'token', token: 'x' })],
    [`/v2/payments/${session.body.id}/refund`, sk, '{}'],
    [`/v2/payments/${session.body.id}/capture`, sk, '{}'],
    [`/v2/payments/${session.body.id}/cancel`, sk, '{}'],
    ['/v2/payouts', sk, JSON.stringify({ amount: 100, currency: 'RUB', destination: { type: 'sbp', phone: '+79001234567' } })],
    // Takes no Idempotency-Key at all: it was created (200) with the bytes ignored.
    ['/v1/channels', sk, JSON.stringify({ name: 'Bot', slug: 'bot-latin1' })],
  ];
  const before = (await s.db.query('SELECT (SELECT count(*) FROM payments) + (SELECT count(*) FROM channels) + (SELECT count(*) FROM links) + (SELECT count(*) FROM refunds) + (SELECT count(*) FROM payouts) AS n')).rows[0].n;
  for (const [path, key, body] of routes) {
    for (const bytes of ['caf\xe9-1', 'k\xff\x80z', 'ca\xc3\xa9f']) {
      const r = await exchange(keyed('POST', path, key, bytes, body), 5000);
      const merchant = path.startsWith('/api/');
      t.match(r.out, /^HTTP\/1\.1 400 /, `${path} ${JSON.stringify(bytes)}: 400`);
      t.match(r.out, merchant ? /"code":"idempotency_key_invalid"/ : /"code":"VALIDATION_ERROR".*"param":"Idempotency-Key".*"reason":"IDEMPOTENCY_KEY_INVALID"/s, `${path}: the API's own envelope`);
      t.match(r.out, /printable ASCII/, 'the message says why');
    }
  }
  const after = (await s.db.query('SELECT (SELECT count(*) FROM payments) + (SELECT count(*) FROM channels) + (SELECT count(*) FROM links) + (SELECT count(*) FROM refunds) + (SELECT count(*) FROM payouts) AS n')).rows[0].n;
  t.equal(after, before, 'nothing was created');
  t.equal((await s.request('GET', '/v2/health')).status, 200);
  const ascii = await s.request('POST', '/v1/channels', { key: sk, body: { name: 'Bot', slug: 'bot-ascii' }, headers: { 'idempotency-key': 'cafe-1' } });
  t.equal(ascii.status, 200, `a printable ASCII key is still taken: ${ascii.text}`);
});

// uWS 20.30 trims a header value's edges with a signed-char test (`< 33`), so bytes 0x80-0xFF at the
// start or end of a value are dropped before the engine sees it (no API of the binding shows the raw
// bytes). The engine cannot refuse what it never sees: the key arrives shortened, and the request
// hash still tells a different body apart (409). docs/operations.md says so; a balancer in front
// should refuse non-ASCII header bytes.
t.test('bytes 0x80-0xFF at the edges of a header value are dropped by uWS: the shortened key still guards the body', async (t) => {
  const body = JSON.stringify({ amount: 100 });
  const first = await exchange(keyed('POST', '/api/v2/payments', m.key, 'edge-key-1\xe9', body), 5000);
  t.match(first.out, /^HTTP\/1\.1 201 /, 'taken, as edge-key-1');
  const id = /"id":"([^"]+)"/.exec(first.out)?.[1];
  const same = await s.request('POST', '/api/v2/payments', { key: m.key, raw: body, headers: { 'content-type': 'application/json', 'idempotency-key': 'edge-key-1' } });
  t.same([same.status, same.body.id, same.headers.get('idempotent-replayed')], [201, id, 'true'], 'the plain key replays it: one payment');
  const other = await exchange(keyed('POST', '/api/v2/payments', m.key, '\xc3\xa9edge-key-1', JSON.stringify({ amount: 200 })), 5000);
  t.match(other.out, /^HTTP\/1\.1 409 .*"code":"idempotency_conflict"/s, 'another body under the shortened key is a conflict, never a second payment');
});

// uWS parses a request line and header block that arrives in one read (its read buffer is 512 KB);
// one it must gather across reads may hold at most 4096 bytes (compiled into this build), and past
// that it closes the connection itself: no handler runs, so no envelope can be
// sent. 1 MB can never arrive in one read; a block under 4 KB is always parsed, in pieces or not.
t.test('a request line or header block over uWS\'s limit: the connection is closed with no answer (docs/operations.md); under 4 KB it is answered', async (t) => {
  const line = await exchange(Buffer.from(`GET /v2/payments?order_id=${'x'.repeat(1 << 20)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sk}\r\n\r\n`), 15_000);
  t.same([line.out, line.closed], ['', true], `1 MB query string: closed (${line.error ?? 'end'}), nothing answered`);
  const header = await exchange(Buffer.from(`GET /v2/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sk}\r\nX-Big: ${'y'.repeat(1 << 20)}\r\n\r\n`), 15_000);
  t.same([header.out, header.closed], ['', true], '1 MB header: closed, nothing answered');
  // Just under 4 KB in 200-byte pieces: gathered across reads, within the limit.
  const small = Buffer.from(`GET /v2/payments?order_id=${'x'.repeat(3700)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sk}\r\nConnection: close\r\n\r\n`);
  t.ok(small.length < 4096, `${small.length} bytes`);
  const answered = await new Promise<string>((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.setNoDelay(true);
    let out = '';
    sock.on('data', (d) => { out += d.toString('latin1'); });
    sock.on('error', () => resolve(out));
    sock.on('close', () => resolve(out));
    let i = 0;
    const step = () => { if (i < small.length) { sock.write(small.subarray(i, i + 200)); i += 200; setImmediate(step); } };
    step();
  });
  t.match(answered, /^HTTP\/1\.1 400 .*"param":"order_id"/s, 'answered in the envelope (the over-long order_id refused by the API)');
  t.equal((await s.request('GET', '/v2/health')).status, 200, 'the server keeps serving');
});

// Raw request framing, byte by byte over a socket: what the front end refuses itself (400 and
// close), what uWS closes at once, and what uWS leaves unanswered until its idle timeout (the
// cases a load balancer in front must normalise; see docs/operations.md). The server stays healthy.
import t from 'tap';
import net from 'node:net';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant();
const port = Number(new URL(s.url).port);

interface Exchange { out: string; closed: boolean; closedAfterMs: number | null }

/** Writes the bytes and collects the answer until the server closes or `waitMs` passes (then the client closes). */
function exchange(bytes: Buffer | string, waitMs: number): Promise<Exchange> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const sock = net.connect(port, '127.0.0.1');
    let out = '';
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve({ out, closed, closedAfterMs: closed ? Date.now() - t0 : null });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    sock.on('data', (d) => { out += d.toString('latin1'); });
    sock.on('error', () => finish(true));
    sock.on('end', () => finish(true));
    sock.on('close', () => finish(true));
    sock.write(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes);
  });
}

const auth = `Authorization: Bearer ${m.key}\r\n`;
const countPayments = async () => (await s.db.query('SELECT count(*)::int AS n FROM payments')).rows[0].n as number;

t.test('a repeated Content-Length is refused with 400 and the connection closed at once', async (t) => {
  const before = await countPayments();
  for (const [a, b] of [[2, 14], [14, 2], [14, 14]]) {
    const r = await exchange(`POST /api/v2/payments HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: ${a}\r\nContent-Length: ${b}\r\n\r\n{"amount":100}`, 1000);
    t.match(r.out, /^HTTP\/1\.1 400 /, `CL ${a} then ${b}: 400`);
    t.match(r.out, /"code":"request_malformed"/);
    t.ok(r.closed, 'closed by the server within a second');
  }
  const pub = await exchange('POST /checkout/EXZ-20260101-AAAAAAAAAA/pay HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', 1000);
  t.match(pub.out, /^HTTP\/1\.1 400 .*"code":"VALIDATION_ERROR".*"reason":"REQUEST_MALFORMED"/s, 'public endpoints too, in the gateway envelope (400 VALIDATION_ERROR, the specific code as reason)');
  t.equal(await countPayments(), before, 'nothing created');
});

t.test('Content-Length with Transfer-Encoding: uWS closes the connection at once without an answer', async (t) => {
  const r = await exchange(`POST /api/v2/payments HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 14\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 1000);
  t.ok(r.closed, 'closed within a second');
  t.equal(r.out, '', 'no answer (nothing for a proxy to misread)');
});

t.test('a non-ASCII byte in Idempotency-Key is refused, never altered', async (t) => {
  const body = '{"amount":100}';
  for (const key of ['abc\xffdef', 'abc\x80def', 'abc\xc3\xa9def']) {
    const r = await exchange(`POST /api/v2/payments HTTP/1.1\r\nHost: x\r\n${auth}Idempotency-Key: ${key}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`, 1000);
    t.match(r.out, /^HTTP\/1\.1 400 .*"code":"idempotency_key_invalid"/s, JSON.stringify(key));
  }
  const plain = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100 }, headers: { 'idempotency-key': 'abcdef' } });
  t.equal(plain.status, 201, 'the ASCII key that a dropped byte would collide with is still free');
});

// uWS cannot parse these and hands them to no handler; it answers nothing and closes the socket
// after its HTTP idle timeout (10 s, not configurable). Documented in docs/operations.md.
const UNPARSED: [string, string | Buffer][] = [
  ['a bare LF line ending', 'GET /v2/health HTTP/1.1\nHost: x\n\n'],
  ['a bare CR inside a header', 'GET /v2/health HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n'],
  ['a NUL inside a header', 'GET /v2/health HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n'],
  ['no Host on HTTP/1.1', 'GET /v2/health HTTP/1.1\r\n\r\n'],
  ['OPTIONS *', 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['a TLS ClientHello', Buffer.from('16030100a5010000a10303' + '00'.repeat(32) + '000002c02f0100', 'hex')],
];

t.test('requests uWS cannot parse get no answer and are closed by its idle timeout; the server keeps serving', async (t) => {
  const results = await Promise.all(UNPARSED.map(([, bytes]) => exchange(bytes, 16_000)));
  UNPARSED.forEach(([name], i) => {
    const r = results[i];
    t.equal(r.out, '', `${name}: no answer`);
    t.ok(r.closed, `${name}: closed by the server (after ${r.closedAfterMs} ms)`);
  });
  const h = await s.request('GET', '/v2/health');
  t.equal(h.status, 200);
});

// The front end's limits as a client meets them: a body over the limit answered 413 that Node's
// http client (with or without Expect: 100-continue) can read; rate-limit headers on every
// /api/v2 answer to a known key; the public endpoints' own rate limit per address and per payment;
// Retry-After on every 503; nosniff on JSON answers.
import t from 'tap';
import http from 'node:http';
import net from 'node:net';
import { startTestServer } from '../helpers/server.js';
import { PG_URL, freshDatabase } from '../helpers/env.js';
import { newPayment } from '../helpers/checkout.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const port = Number(new URL(s.url).port);

/**
 * A POST of `size` bytes with node:http. Resolves when the request is closed, with the status and
 * body it read and every error it saw on the way (EPIPE/ECONNRESET when the server hangs up mid-body).
 */
function nodePost(path: string, size: number, opts: { expect?: boolean; key?: string } = {}): Promise<{ status?: number; body?: string; errors: string[] }> {
  return new Promise((resolve) => {
    const out: { status?: number; body?: string; errors: string[] } = { errors: [] };
    const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': size };
    if (opts.expect) headers.expect = '100-continue';
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path, headers, timeout: 10_000, agent: false }, (res) => {
      out.status = res.statusCode;
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => { out.body = body; });
      res.on('error', (e: NodeJS.ErrnoException) => { out.errors.push(e.code ?? e.message); });
    });
    req.on('error', (e: NodeJS.ErrnoException) => { out.errors.push(e.code ?? e.message); });
    req.on('timeout', () => req.destroy(new Error('client timeout')));
    req.on('close', () => resolve(out));
    // In pieces, as a real upload goes: the server's answer arrives while the client is still writing.
    const write = () => {
      const piece = Buffer.alloc(64 * 1024, 0x20);
      let left = size;
      const more = () => {
        while (left > 0) {
          const n = Math.min(left, piece.length);
          left -= n;
          if (!req.write(n === piece.length ? piece : piece.subarray(0, n))) return void req.once('drain', more);
        }
        req.end();
      };
      more();
    };
    if (opts.expect) req.on('continue', write); else write();
  });
}

t.test('a body over the limit: Node\'s http client reads the 413, with and without Expect: 100-continue', async (t) => {
  const id = await newPayment(s, m.key);
  for (const expect of [false, true]) {
    const merchant = await nodePost('/api/v2/payments', 4 * 1024 * 1024, { expect, key: m.key });
    t.same(merchant.errors, [], `merchant API, expect=${expect}: no client error`);
    t.equal(merchant.status, 413);
    t.match(merchant.body, /"code":"body_too_large"/);
    const pub = await nodePost(`/checkout/${id}/pay`, 256 * 1024, { expect });
    t.same(pub.errors, [], `public endpoint, expect=${expect}: no client error`);
    t.equal(pub.status, 413);
    t.match(pub.body, /"code":"BODY_TOO_LARGE".*limit 16384 bytes/);
  }
  const after = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100 } });
  t.equal(after.status, 201, 'the server serves on');
});

t.test('answers decided before the body is read (401, 404, 405) also reach a client still sending it', async (t) => {
  const cases: [string, string | undefined, number][] = [
    ['/api/v2/payments', 'svc_test_wrong', 401],
    ['/api/v2/no-such-thing', m.key, 404],
    ['/api/v2/ping', m.key, 405],
    ['/internal/merchants', 'not-the-admin-token', 401],
  ];
  for (const [path, key, status] of cases) {
    const r = await nodePost(path, 2 * 1024 * 1024, { key });
    t.same(r.errors, [], `${path}: no client error`);
    t.equal(r.status, status, path);
  }
});

t.test('every /api/v2 answer to a known key carries the rate-limit headers, 404 and 405 included', async (t) => {
  const mm = await s.merchant({ rate_limit_per_minute: 3 });
  const a = await s.request('GET', '/api/v2/no-such-thing', { key: mm.key });
  t.equal(a.status, 404);
  t.equal(a.body.error.code, 'route_not_found');
  t.equal(a.headers.get('x-ratelimit-limit'), '3');
  t.equal(a.headers.get('x-ratelimit-remaining'), '2');
  t.ok(a.headers.get('x-ratelimit-reset'));
  const b = await s.request('DELETE', '/api/v2/ping', { key: mm.key });
  t.equal(b.status, 405);
  t.equal(b.headers.get('x-ratelimit-remaining'), '1');
  const c = await s.request('GET', '/api/v2/ping', { key: mm.key });
  t.equal(c.status, 200);
  const d = await s.request('GET', '/api/v2/elsewhere', { key: mm.key });
  t.equal(d.status, 429, 'unknown paths count against the limit too');
  t.equal(d.headers.get('x-ratelimit-remaining'), '0');
  t.ok(Number(d.headers.get('retry-after')) >= 1);
  const anon = await s.request('GET', '/api/v2/no-such-thing');
  t.equal(anon.status, 404);
  t.equal(anon.headers.get('x-ratelimit-limit'), null, 'no key, no rate-limit headers');
  t.equal(anon.headers.get('x-content-type-options'), 'nosniff');
});

t.test('public endpoints and pages: a rate limit per client address and per payment', async (t) => {
  const p = await startTestServer(t, { PUBLIC_RATE_LIMIT_PER_MINUTE: '8', PUBLIC_SESSION_RATE_LIMIT_PER_MINUTE: '3', CLIENT_IP_HEADER: 'X-Client-IP' });
  const pm = await p.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
  const [one, two] = [await newPayment(p, pm.key), await newPayment(p, pm.key)];
  const from = (ip: string) => ({ headers: { 'x-client-ip': ip } });

  const perSession = await Promise.all(Array.from({ length: 5 }, () => p.request('GET', `/checkout/${one}/status`, from('10.0.0.1'))));
  t.equal(perSession.filter((r) => r.status === 200).length, 3, 'three requests a minute for one payment');
  const limited = perSession.filter((r) => r.status === 429);
  t.equal(limited.length, 2);
  for (const r of limited) {
    t.equal(r.body.error.code, 'RATE_LIMITED', 'the gateway envelope');
    t.ok(Number(r.headers.get('retry-after')) >= 1);
  }
  const page = await p.request('GET', `/pay/${one}`, from('10.0.0.2'));
  t.equal(page.status, 429, 'the hosted page shares the payment\'s budget');
  t.equal(page.body.error.code, 'RATE_LIMITED', 'pages answer 429 in the gateway JSON envelope');
  t.equal((await p.request('GET', `/checkout/${two}/status`, from('10.0.0.1'))).status, 200, 'another payment has its own budget');

  // Per address: 8 a minute over any payments (10.0.0.1 has used 6 so far).
  const more = await Promise.all([
    p.request('GET', `/checkout/${two}/methods`, from('10.0.0.1')),
    p.request('GET', '/sbp/members', from('10.0.0.1')),
    p.request('GET', '/sbp/members', from('10.0.0.1')),
  ]);
  t.same(more.map((r) => r.status).sort(), [200, 200, 429], 'the address runs out after 8');
  t.equal((await p.request('GET', '/sbp/members', from('10.0.0.3'))).status, 200, 'another address is not affected');
  const body = await p.request('POST', `/checkout/${two}/pay`, { ...from('10.0.0.1'), body: { number: '4242424242424242', exp_month: '12', exp_year: '34', cvc: '731' } });
  t.equal(body.status, 429, 'the limit is checked before the body is used');
  const { rows } = await p.db.query("SELECT count(*)::int AS n FROM payments WHERE status <> 'pending'");
  t.equal(rows[0].n, 0, 'nothing was paid');
});

/** A TCP proxy to Postgres that can refuse and cut every connection (a database outage). */
async function pgProxy(target: URL) {
  const socks = new Set<net.Socket>();
  let up = true;
  const server = net.createServer((c) => {
    if (!up) return c.destroy();
    const u = net.connect(Number(target.port || 5432), target.hostname);
    socks.add(c); socks.add(u);
    c.pipe(u); u.pipe(c);
    const drop = () => { c.destroy(); u.destroy(); socks.delete(c); socks.delete(u); };
    c.on('error', drop); u.on('error', drop); c.on('close', drop); u.on('close', drop);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    down() { up = false; for (const x of socks) x.destroy(); socks.clear(); },
    up() { up = true; },
    close: () => new Promise<void>((r) => { for (const x of socks) x.destroy(); server.close(() => r()); }),
  };
}

t.test('every 503 carries Retry-After, also when Postgres is unreachable', { skip: PG_URL ? false : 'needs DATABASE_URL: the proxy sits in front of a database of its own' }, async (t) => {
  const db = await freshDatabase();
  t.teardown(() => db.drop());
  const target = new URL(db.url);
  const proxy = await pgProxy(target);
  t.teardown(() => proxy.close());
  const via = new URL(db.url);
  via.hostname = '127.0.0.1';
  via.port = String(proxy.port);
  const d = await startTestServer(null, { AUTH_CACHE_MS: '60000' }, { databaseUrl: via.toString() });
  const dm = await d.merchant();
  t.equal((await d.request('POST', '/api/v2/payments', { key: dm.key, body: { amount: 100 } })).status, 201);

  proxy.down();
  const create = await d.request('POST', '/api/v2/payments', { key: dm.key, body: { amount: 100 } });
  t.equal(create.status, 503, create.text);
  // A connection cut under a write leaves its fate unknown to the engine: outcome_unknown says so.
  t.match(create.body.error.code, /^(service_unavailable|outcome_unknown)$/);
  t.ok(Number(create.headers.get('retry-after')) >= 1, 'create: Retry-After');
  const health = await d.request('GET', '/v2/health');
  t.equal(health.status, 503);
  t.ok(Number(health.headers.get('retry-after')) >= 1, 'health: Retry-After');
  const page = await d.request('GET', `/checkout/EXZ-20260101-AAAAAAAAAA/status`);
  t.equal(page.status, 503, page.text);
  t.ok(Number(page.headers.get('retry-after')) >= 1, 'public endpoint: Retry-After');
  proxy.up();
  await d.close();
});

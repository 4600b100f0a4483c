// The front end under misuse: aborted uploads, lies about Content-Length, garbage on the wire,
// re-run migrations. The server keeps answering and stores nothing half-done.
import t from 'tap';
import net from 'node:net';
import { startTestServer } from '../helpers/server.js';
import { migrate } from '../../src/store/migrate.js';
import { testPool } from '../helpers/env.js';

const s = await startTestServer(t);
const m = await s.merchant();
const { port } = new URL(s.url);

function raw(payload: string, waitMs = 300): Promise<string> {
  return new Promise((resolve) => {
    const sock = net.connect(Number(port), '127.0.0.1');
    let out = '';
    sock.on('data', (d) => { out += d.toString(); });
    sock.on('error', () => {});
    sock.write(payload);
    setTimeout(() => { sock.destroy(); resolve(out); }, waitMs);
  });
}

t.test('a client that aborts mid-body leaves the server healthy and stores nothing', async (t) => {
  const body = JSON.stringify({ amount: 100, description: 'half' });
  await raw(`POST /api/v2/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${m.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 50}\r\n\r\n${body}`, 100);
  await Promise.all(Array.from({ length: 20 }, () =>
    raw(`POST /api/v2/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${m.key}\r\nContent-Length: 500\r\n\r\n{"amount":`, 20)));
  const h = await s.request('GET', '/v2/health');
  t.equal(h.status, 200);
  const { rows } = await s.db.query("SELECT count(*)::int AS n FROM payments WHERE description = 'half'");
  t.equal(rows[0].n, 0);
});

t.test('a declared Content-Length over the limit is refused without being kept', async (t) => {
  // The body is drained (read and dropped) before the answer so that a client still sending can
  // read it; one that stops sending gets the 413 when the drain deadline (2 s) passes.
  const out = await raw(`POST /api/v2/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${m.key}\r\nContent-Length: 5000000\r\n\r\n{}`, 3500);
  t.match(out, /^HTTP\/1\.1 413/);
  t.match(out, /"code":"body_too_large"/);
});

t.test('garbage on the wire does not take the server down', async (t) => {
  await raw('\x00\x01\x02 NOT HTTP\r\n\r\n');
  await raw('GET /v2/health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
  const h = await s.request('GET', '/v2/health');
  t.equal(h.status, 200);
});

t.test('odd paths and encodings get the envelope', async (t) => {
  const r = await s.request('GET', '/api/v2/payments/%E0%A4%A', { key: m.key });
  t.equal(r.status, 404);
  t.equal(r.body.error.code, 'payment_not_found');
  const long = await s.request('GET', `/api/v2/payments/${'x'.repeat(2000)}`, { key: m.key });
  t.equal(long.status, 404);
});

t.test('migrations are idempotent and recorded', async (t) => {
  const pool = testPool(s.srv.databaseUrl, 2);
  t.teardown(() => pool.end());
  t.same(await migrate(pool), [], 'a second run applies nothing');
  const { rows } = await pool.query('SELECT version, name FROM schema_migrations ORDER BY version');
  t.ok(rows.length >= 1);
  t.equal(rows[0].name, '001_init.sql');
});

t.test('a full mailbox answers 503 with Retry-After instead of queueing without bound', async (t) => {
  const small = await startTestServer(t, { MAILBOX_LIMIT: '1', WORKERS: '1' });
  const mm = await small.merchant();
  const replies = await Promise.all(Array.from({ length: 40 }, () => small.request('POST', '/api/v2/payments', { key: mm.key, body: { amount: 5 } })));
  const refused = replies.filter((r) => r.status === 503);
  t.ok(refused.length > 0, `${refused.length} of 40 refused`);
  t.ok(replies.every((r) => r.status === 201 || r.status === 503));
  for (const r of refused) {
    t.equal(r.body.error.code, 'service_unavailable');
    t.equal(r.headers.get('retry-after'), '1');
  }
  const { rows } = await small.db.query('SELECT count(*)::int AS n FROM payments');
  t.equal(rows[0].n, replies.filter((r) => r.status === 201).length, 'exactly the acknowledged creates are stored');
});

t.test('a worker thread that dies is replaced; the shard keeps serving', async (t) => {
  const s2 = await startTestServer(t, { WORKERS: '1' });
  const mm = await s2.merchant();
  t.equal((await s2.request('POST', '/api/v2/payments', { key: mm.key, body: { amount: 5 } })).status, 201);
  const shard = (s2.srv.services.dispatcher as unknown as { shards: { pool: { threads: { terminate(): Promise<number> }[] } }[] }).shards[0];
  await shard.pool.threads[0].terminate();
  const deadline = Date.now() + 10_000;
  let status = 0;
  while (Date.now() < deadline) {
    status = (await s2.request('POST', '/api/v2/payments', { key: mm.key, body: { amount: 6 } })).status;
    if (status === 201) break;
    t.equal(status, 503, 'while it restarts, the answer is 503, not a hang');
    await new Promise((r) => setTimeout(r, 50));
  }
  t.equal(status, 201, 'served again after the restart');
  t.same(s2.srv.services.dispatcher.alive(), [true]);
});

// The front end under misuse: aborted uploads, lies about Content-Length, garbage on the wire,
// re-run migrations. The server keeps answering and stores nothing half-done.
import t from 'tap';
import net from 'node:net';
import pg from 'pg';
import { startTestServer } from '../helpers/server.js';
import { migrate } from '../../src/store/migrate.js';

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

t.test('a declared Content-Length over the limit is refused before reading', async (t) => {
  const out = await raw(`POST /api/v2/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${m.key}\r\nContent-Length: 5000000\r\n\r\n{}`);
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
  const pool = new pg.Pool({ connectionString: s.srv.databaseUrl, max: 2 });
  t.teardown(() => pool.end());
  t.same(await migrate(pool), [], 'a second run applies nothing');
  const { rows } = await pool.query('SELECT version, name FROM schema_migrations ORDER BY version');
  t.ok(rows.length >= 1);
  t.equal(rows[0].name, '001_init.sql');
});

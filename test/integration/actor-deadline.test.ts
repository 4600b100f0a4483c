// A command past its deadline: the caller gets 503 deadline_exceeded with Retry-After at once,
// the actor still finishes the command, its late reply is dropped, and the result is the one a
// retry with the same Idempotency-Key finds. Postgres is held back by our own TCP proxy.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { PG_URL, freshDatabase, suffix, testPool } from '../helpers/env.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

if (!PG_URL) {
  t.plan(0, 'skipped: needs DATABASE_URL (the TCP proxy sits in front of the machine\'s Postgres; CI sets it)');
  process.exit(0);
}

const db = await freshDatabase('deadline');
const target = new URL(PG_URL!);
const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
const direct = testPool(db.url, 2);
t.teardown(async () => { await direct.end(); await proxy.close(); await db.drop(); });
// Database deadlines far above the actor's: only the actor deadline can answer first.
const s = await startTestServer(t, {
  ACTOR_DEADLINE_MS: '300', PG_QUERY_TIMEOUT_MS: '60000', PG_STATEMENT_TIMEOUT_MS: '60000', PG_CONNECT_TIMEOUT_MS: '60000',
  AUTH_CACHE_MS: '600000',
}, { databaseUrl: proxy.url(db.url) });

t.test('a late actor result lands; the caller had 503 and its retry gets that result', async (t) => {
  const m = await s.merchant();
  const post = (key: string) => fetch(`${s.url}/api/v2/payments`, {
    method: 'POST', body: JSON.stringify({ amount: 1234 }), signal: AbortSignal.timeout(20_000),
    headers: { authorization: `Bearer ${m.key}`, 'content-type': 'application/json', 'idempotency-key': key },
  });
  // Warm up (the first commands open connections and may pass the short deadline).
  let warm = 0;
  for (let i = 0; i < 50 && warm !== 201; i++) warm = (await post(`warm-${suffix()}`)).status;
  t.equal(warm, 201, 'healthy (and the key is cached)');

  const key = `late-${suffix()}`;
  proxy.stall();
  const r = await post(key);
  const body = await r.json() as any;
  t.equal(r.status, 503, 'the caller gets 503 at the deadline');
  t.equal(body.error.code, 'deadline_exceeded');
  t.equal(r.headers.get('retry-after'), '1');
  proxy.resume();

  // The actor finishes the command once Postgres answers: the payment commits.
  let row: { id: string } | undefined;
  for (let i = 0; i < 100 && !row; i++) {
    row = (await direct.query('SELECT id FROM payments WHERE idempotency_key = $1', [key])).rows[0];
    if (!row) await new Promise((res) => setTimeout(res, 100));
  }
  t.ok(row, 'the late result was committed');
  // The retry with the same key, as a client retries a 503: on a busy machine a retry may itself
  // pass the 300 ms deadline; it is tried again, never answered as something else.
  let again = await post(key);
  for (let i = 0; i < 20 && again.status === 503; i++) {
    await new Promise((res) => setTimeout(res, 200));
    again = await post(key);
  }
  const replay = await again.json() as any;
  t.equal(again.status, 201, 'the retry succeeds');
  t.equal(replay.id, row!.id, 'with the payment the timed-out command created');
  t.equal((await direct.query('SELECT count(*)::int AS n FROM payments WHERE idempotency_key = $1', [key])).rows[0].n, 1, 'once');
  const read = await s.request('GET', `/api/v2/payments/${row!.id}`, { key: m.key });
  t.equal(read.status, 200);
  t.equal(read.body.amount, 1234);
  t.equal((await post(`after-${suffix()}`)).status, 201, 'the shard serves new commands');
});

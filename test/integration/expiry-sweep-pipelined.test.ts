// The expiry sweep is pipelined (issue 25): one run of the periodic task expires more due payments
// than one claim holds (claims of 200) without waiting for its poll interval, each through its
// payment's actor; and two schedulers sweeping one database at once expire each payment exactly once.
import t from 'tap';
import { startScheduler, type Scheduler } from '../../actors/scheduler.js';
import { createLogger } from '../../src/log.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

const N = 450; // more than two claims
// The servers' own sweeps wait ten minutes: the test runs its own schedulers' runs (tick) itself.
const POLL_MS = 600_000;
const env = { PAYMENT_WINDOW_SECONDS: '1', EXPIRY_POLL_MS: String(POLL_MS) };

/** N payments, created under keys (a 503 on this shared machine is retried with the same key), all due once the database says so. */
async function duePayments(s: TestServer, key: string, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < N; i += 50) {
    const made = await Promise.all(Array.from({ length: Math.min(50, N - i) }, async (_, j) => {
      const opts = { key, body: { amount: 100 + i + j }, headers: { 'idempotency-key': `${prefix}-${i + j}` } };
      let r = await s.request('POST', '/api/v2/payments', opts);
      for (let k = 0; r.status === 503 && k < 5; k++) r = await s.request('POST', '/api/v2/payments', opts);
      if (r.status !== 201) throw new Error(r.text);
      return r.body.id as string;
    }));
    ids.push(...made);
  }
  await until('every payment due', async () =>
    (await s.db.query('SELECT count(*)::int AS n FROM payments WHERE id = ANY($1) AND expires_at <= now()', [ids])).rows[0].n === N, 60_000, 100);
  return ids;
}

async function outcome(s: TestServer, ids: string[]) {
  const st = await s.db.query("SELECT count(*) FILTER (WHERE status = 'expired')::int AS expired FROM payments WHERE id = ANY($1)", [ids]);
  const ev = await s.db.query("SELECT count(*)::int AS n, count(DISTINCT aggregate_id)::int AS d FROM events WHERE type = 'payment.expired' AND aggregate_id = ANY($1)", [ids]);
  return { expired: st.rows[0].expired as number, events: ev.rows[0].n as number, distinct: ev.rows[0].d as number };
}

function scheduler(t: { teardown(fn: () => unknown): void }, s: TestServer): Scheduler {
  const sch = startScheduler(s.db, s.srv.services.dispatcher, POLL_MS, createLogger('silent'));
  t.teardown(() => sch.stop());
  return sch;
}

t.test('one run expires more due payments than one claim holds, each once, without waiting for the poll interval', async (t) => {
  const s = await startTestServer(t, env);
  const m = await s.merchant();
  const ids = await duePayments(s, m.key, 'one');
  const n = await scheduler(t, s).tick();
  t.equal(n, N, 'the run expired every due payment');
  t.same(await outcome(s, ids), { expired: N, events: N, distinct: N }, 'all expired when the run ended, one payment.expired each');
});

t.test('two schedulers sweeping one database at once expire each payment exactly once', async (t) => {
  const a = await startTestServer(t, env);
  const b = await startTestServer(t, env, { databaseUrl: a.srv.databaseUrl });
  const m = await a.merchant();
  const ids = await duePayments(a, m.key, 'two');
  const [na, nb] = await Promise.all([scheduler(t, a).tick(), scheduler(t, b).tick()]);
  t.equal(na + nb, N, `every due payment expired by one of the two runs (${na} + ${nb})`);
  t.same(await outcome(a, ids), { expired: N, events: N, distinct: N }, 'each expired once');
});

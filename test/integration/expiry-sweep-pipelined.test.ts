// The expiry sweep is pipelined (issue 25): one run of the periodic task expires more due payments
// than one claim holds (claims of 200) without waiting for its poll interval, each through its
// payment's actor; and two schedulers sweeping one database at once expire each payment exactly once.
// The voids of lapsed authorizations, which ask the bank, run apart: a void the bank is slow to answer
// holds back no expiry (session 22).
import t from 'tap';
import type { Dispatcher } from '../../actors/dispatcher.js';
import { card, CARDS } from '../helpers/checkout.js';
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

t.test('a lapsed authorization whose void is not answered holds back no expiry', async (t) => {
  const s = await startTestServer(t, { ...env, AUTHORIZATION_WINDOW_SECONDS: '1' });
  const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
  await s.admin('PATCH', `/internal/merchants/${m.id}`, { card_data_allowed: true });
  const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;
  const dueNow = (id: string) => until(`${id} due`, async () =>
    (await s.db.query('SELECT count(*)::int AS n FROM payments WHERE id = $1 AND due_at <= now()', [id])).rows[0].n === 1, 60_000, 50);
  const held = await s.request('POST', '/v2/payments', { key: sk, body: { amount: 700, currency: 'RUB', card: card(CARDS.success), capture_method: 'manual' } });
  t.equal(held.body.status, 'authorized', held.text);
  await dueNow(held.body.id);
  // The actors stand in here: a void stays unanswered until the test lets it (a bank that does not
  // answer); an expiry is answered at once (the row itself is left as it is).
  const sent: string[] = [];
  let answerVoid: () => void = () => {};
  const voidAnswered = new Promise<void>((resolve) => { answerVoid = resolve; });
  const dispatcher = {
    send: async (cmd: { kind: string; id: string }) => {
      sent.push(`${cmd.kind} ${cmd.id}`);
      if (cmd.kind === 'payment.void') await voidAnswered;
      return { ok: true };
    },
  } as unknown as Dispatcher;
  const sch = startScheduler(s.db, dispatcher, 50, createLogger('silent'));
  t.teardown(() => { answerVoid(); return sch.stop(); });
  await until('the void sent, and unanswered', () => sent.includes(`payment.void ${held.body.id}`), 60_000);
  // Due only now, while the void waits: a sweep that waits for its voids never gets to it.
  const pending = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 701 } });
  t.equal(pending.status, 201, pending.text);
  await dueNow(pending.body.id);
  await until('the pending payment handed on to expire while the void is unanswered', () => sent.includes(`payment.apply ${pending.body.id}`), 60_000);
  answerVoid();
  await sch.stop();
});

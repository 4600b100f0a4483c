// The recovery sweep after a failed try (issue 25): a claim is leased for 30 s so that no second
// process asks the bank meanwhile, but a try that failed (the bank did not answer, the actor's
// deadline passed) gives its claim back after RECOVERY_RETRY_SECONDS, and the next sweep tries again.
// And a recovery that is slow (its answer withheld) holds back neither the next claims nor the other
// attempts (session 22). The dispatcher here stands in for the actors (it answers as each test
// says); the attempts, their claims and their leases are real rows in Postgres. The server is this
// file's own (its settings are its own), so that the sweeps here, which take every started attempt at
// once, never lease another file's attempts in a shared database.
import t from 'tap';
import { testPool } from '../helpers/env.js';
import { startTestServer } from '../helpers/server.js';
import { RECOVERY_LEASE_SECONDS, RECOVERY_RETRY_SECONDS, startRecovery } from '../../actors/recovery.js';
import type { Dispatcher } from '../../actors/dispatcher.js';
import { prefixedId } from '../../src/domain/ids.js';
import { createLogger } from '../../src/log.js';
import { fail } from '../../src/errors.js';
import { until } from '../helpers/wait.js';

// Its own sweep waits ten minutes before it takes an attempt: the sweeps here take them at once.
const s = await startTestServer(t, { ATTEMPT_RECOVERY_AFTER_MS: '600000' });
const pool = testPool(s.srv.databaseUrl, 2);
t.teardown(() => pool.end());

/** An attempt started now, with no outcome: the test server's own sweep leaves it alone, the ones here take it at once. */
const startedAttempt = (id: string, aggregate: string) => pool.query(
  `INSERT INTO connector_attempts (id, aggregate_id, operation, connector, amount, currency, status, context)
   VALUES ($1, $2, 'pay', 'sandbox', 100, 'AZN', 'started', '{}')`, [id, aggregate]);

t.test('a failed recovery try is tried again after the retry delay, not after the whole lease', async (t) => {
  const id = prefixedId('att', 24);
  const aggregate = prefixedId('pay', 24);
  await startedAttempt(id, aggregate);
  const tries: { lease: number }[] = [];
  const leaseLeft = async () => Number((await pool.query('SELECT extract(epoch FROM recover_lease - now()) AS s FROM connector_attempts WHERE id = $1', [id])).rows[0].s);
  const dispatcher = {
    send: async (cmd: { attemptId: string }) => {
      if (cmd.attemptId !== id) return { ok: true };
      tries.push({ lease: await leaseLeft() });
      return tries.length === 1 ? { ok: false, failure: fail('service_unavailable', null, 'the bank did not answer') } : { ok: true, attemptId: id, outcome: 'settled' };
    },
  } as unknown as Dispatcher;
  const sweep = startRecovery(pool, dispatcher, { afterMs: 0, pollMs: 50 }, createLogger('silent'));
  t.teardown(() => sweep.stop());
  await until('the first try', () => tries.length >= 1, 60_000);
  t.ok(tries[0].lease > RECOVERY_RETRY_SECONDS + 1, `claimed with the full lease (${tries[0].lease.toFixed(1)} s left of ${RECOVERY_LEASE_SECONDS})`);
  // Both well before the claim's own lease would run out (30 s): without the shortening, neither comes.
  const before = RECOVERY_LEASE_SECONDS * 1000 - 10_000;
  await until('the lease shortened after the failure', async () => tries.length >= 2 || (await leaseLeft()) <= RECOVERY_RETRY_SECONDS, before);
  await until('the second try', () => tries.length >= 2, before);
  t.equal(tries.length, 2, 'tried twice: once failed, once settled');
  await sweep.stop();
});

t.test('a recovery whose answer is slow holds back neither the next claims nor the other attempts', async (t) => {
  const slow = prefixedId('att', 24);
  const later = prefixedId('att', 24);
  await startedAttempt(slow, prefixedId('pay', 24));
  const sent: string[] = [];
  let answerSlow: () => void = () => {};
  const slowAnswered = new Promise<void>((resolve) => { answerSlow = resolve; });
  const dispatcher = {
    send: async (cmd: { attemptId: string }) => {
      sent.push(cmd.attemptId);
      // The slow one answers only when the test lets it (a bank that does not answer, a row lock).
      if (cmd.attemptId === slow) await slowAnswered;
      return { ok: true, attemptId: cmd.attemptId, outcome: 'settled' };
    },
  } as unknown as Dispatcher;
  const sweep = startRecovery(pool, dispatcher, { afterMs: 0, pollMs: 50 }, createLogger('silent'));
  t.teardown(() => { answerSlow(); return sweep.stop(); });
  await until('the slow attempt claimed and sent', () => sent.includes(slow), 60_000);
  // Started after the slow one was claimed: only a later claim can take it.
  await startedAttempt(later, prefixedId('pay', 24));
  // Waiting for every recovery of a claim before the next claim never takes it while the slow one is unanswered.
  await until('the later attempt claimed and sent while the slow one is still unanswered', () => sent.includes(later), 60_000);
  t.same(sent.filter((id) => id === later).length, 1, 'the later attempt was sent once');
  let stopped = false;
  const stopping = sweep.stop().then(() => { stopped = true; });
  await new Promise((r) => setImmediate(r));
  t.notOk(stopped, 'stop waits for the recovery in flight');
  answerSlow();
  await stopping;
  t.ok(stopped, 'and ends once it is answered');
});

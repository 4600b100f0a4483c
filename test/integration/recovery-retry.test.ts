// The recovery sweep after a failed try (issue 25): a claim is leased for 30 s so that no second
// process asks the bank meanwhile, but a try that failed (the bank did not answer, the actor's
// deadline passed) gives its claim back after RECOVERY_RETRY_SECONDS, and the next sweep tries again.
// The dispatcher here stands in for the actors (it answers the first try with a failure and the
// second with success); the attempt, its claim and its lease are real rows in Postgres.
import t from 'tap';
import { testPool } from '../helpers/env.js';
import { startTestServer } from '../helpers/server.js';
import { RECOVERY_LEASE_SECONDS, RECOVERY_RETRY_SECONDS, startRecovery } from '../../actors/recovery.js';
import type { Dispatcher } from '../../actors/dispatcher.js';
import { prefixedId } from '../../src/domain/ids.js';
import { createLogger } from '../../src/log.js';
import { fail } from '../../src/errors.js';
import { until } from '../helpers/wait.js';

const s = await startTestServer(t);
const pool = testPool(s.srv.databaseUrl, 2);
t.teardown(() => pool.end());

t.test('a failed recovery try is tried again after the retry delay, not after the whole lease', async (t) => {
  const id = prefixedId('att', 24);
  const aggregate = prefixedId('pay', 24);
  // Started now: the test server's own sweep (60 s by default) leaves it alone; this one takes it at once.
  await pool.query(`INSERT INTO connector_attempts (id, aggregate_id, operation, connector, amount, currency, status, context)
    VALUES ($1, $2, 'pay', 'sandbox', 100, 'AZN', 'started', '{}')`, [id, aggregate]);
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

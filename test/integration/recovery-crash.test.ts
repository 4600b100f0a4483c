// A process killed (SIGKILL) while its recovery sweep has many attempts in flight (the flowing sweep
// of session 22 hands each claimed attempt on without waiting for the others): what it recorded
// stays recorded, the attempts it had claimed are taken over by another process once their leases
// end, and every payment ends as the bank has it, charged at most once, with no attempt left open.
import t from 'tap';
import { until } from '../helpers/wait.js';
import { callChild as call } from '../helpers/child.js';
import { startCluster } from '../helpers/cluster.js';
import { PG_URL } from '../helpers/env.js';
import { CARDS, card } from '../helpers/checkout.js';
import { RECOVERY_LEASE_SECONDS, RECOVERY_RETRY_SECONDS } from '../../actors/recovery.js';

if (!PG_URL) {
  t.plan(0, 'skipped: needs DATABASE_URL (several server processes share one Postgres; CI sets it)');
  process.exit(0);
}

const STUCK = 24;
const cluster = await startCluster(t, 'rcr', { ATTEMPT_RECOVERY_POLL_MS: '100' });
const { db } = cluster;
// Gives up on every bank call after 1 ms, so a pay leaves an attempt with no outcome (the bank may
// have charged or not), unless the bank was quicker still; its own recovery waits ten minutes, so it
// never takes one.
const slow = await cluster.start({ CONNECTOR_TIMEOUT_MS: '1', ATTEMPT_RECOVERY_AFTER_MS: '600000' });
const m = await call(slow, 'POST', '/internal/merchants', 'adm', { name: 'recovery crash', rate_limit_per_minute: 1000000, currencies: ['RUB'], default_currency: 'RUB' });
const key = (await call(slow, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'merchant', mode: 'test' })).body.key as string;

const open = async () => (await db.query("SELECT count(*)::int AS n FROM connector_attempts WHERE status = 'started'")).rows[0].n as number;

t.test('a process killed mid-recovery: another takes over its claims; each payment is as the bank has it', async (t) => {
  // Payments paid through `slow`, eight at a time, until STUCK of them are left with no outcome
  // (the ones the bank answered within 1 ms are paid, and are checked at the end like the others).
  const ids: string[] = [];
  while ((await open()) < STUCK && ids.length < 20 * STUCK) {
    await Promise.all(Array.from({ length: 8 }, async (_, i) => {
      const p = await call(slow, 'POST', '/api/v2/payments', key, { amount: 4900 + ids.length + i, currency: 'RUB' });
      if (p.status !== 201) throw new Error(p.text);
      ids.push(p.body.id as string);
      const paid = await call(slow, 'POST', `/checkout/${p.body.id}/pay`, null, card(CARDS.success));
      if (paid.status !== 200 && paid.body?.error?.code !== 'OUTCOME_UNKNOWN') throw new Error(`pay: ${paid.status} ${paid.text}`);
    }));
  }
  const stuck = await open();
  t.ok(stuck >= STUCK, `${stuck} attempts with no outcome, of ${ids.length} payments`);
  // The sweep below takes attempts older than 1 s: all of them, in its first claim.
  await until('every attempt older than 1 s', async () => (await db.query(
    "SELECT count(*)::int AS n FROM connector_attempts WHERE status = 'started' AND created_at > now() - interval '1.2 seconds'")).rows[0].n === 0, 30_000, 100);

  // Recovers attempts older than 1 s, and dies the moment its first recovery is done, the others
  // of its claim (all of them: a claim takes 100) still in flight.
  const doomed = await cluster.start({ ATTEMPT_RECOVERY_AFTER_MS: '1000', FAILPOINTS: 'after-recovery:kill@1' });
  await doomed.exited;
  const left = await open();
  t.ok(left > 0 && left < stuck, `it recorded at least one and died with ${left} of ${stuck} open`);
  // A try that failed before the kill (an actor over its deadline on a busy machine) gave its claim
  // back with the short retry lease, by design; every other open attempt keeps the dead process's
  // full lease, so nobody else asks the bank for it meanwhile.
  const failedTries = new Set(doomed.output().split('\n').filter((l) => l.includes('attempt recovery failed'))
    .map((l) => { try { return JSON.parse(l).attemptId as string; } catch { return ''; } }).filter(Boolean));
  const unleased = (await db.query<{ id: string }>(
    "SELECT id FROM connector_attempts WHERE status = 'started' AND (recover_lease IS NULL OR recover_lease < now() + make_interval(secs => $1))",
    [RECOVERY_RETRY_SECONDS + 1])).rows.map((r) => r.id);
  t.same(unleased.filter((id) => !failedTries.has(id)), [],
    `every open attempt is leased to the dead process (${failedTries.size} of its tries failed and gave theirs back): nobody else asks the bank meanwhile`);

  // Its leases end after RECOVERY_LEASE_SECONDS; then the survivor asks the bank for each.
  const survivor = await cluster.start({ ATTEMPT_RECOVERY_AFTER_MS: '1000' });
  await until('every attempt recovered', async () => (await open()) === 0, (RECOVERY_LEASE_SECONDS + 90) * 1000);
  const rows = (await db.query<{ id: string; status: string; charges: number; attempts: string[] }>(
    `SELECT p.id, p.status,
       (SELECT count(*)::int FROM sandbox_ledger l JOIN connector_attempts a ON a.id = l.idempotency_key WHERE a.aggregate_id = p.id AND l.moved) AS charges,
       (SELECT array_agg(a.status ORDER BY a.created_at) FROM connector_attempts a WHERE a.aggregate_id = p.id) AS attempts
     FROM payments p WHERE p.id = ANY($1)`, [ids])).rows;
  t.equal(rows.length, ids.length);
  const wrong = rows.filter((r) => !((r.status === 'succeeded' && r.charges === 1 && r.attempts.join() === 'succeeded')
    || (r.status === 'pending' && r.charges === 0 && r.attempts.join() === 'abandoned')));
  t.same(wrong, [], 'charged once and succeeded, or never charged and payable again (its attempt abandoned)');
  const shown = await call(survivor, 'GET', `/api/v2/payments/${ids[0]}`, key);
  t.equal(shown.body.status, rows.find((r) => r.id === ids[0])!.status, 'the API shows what the rows hold');
});

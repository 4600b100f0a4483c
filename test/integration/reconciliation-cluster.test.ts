// Reconciliation across processes (issue 26): two real server processes on one database, both
// running the reconciler every 20 ms over one-second windows, reconcile each window once: one run
// per window, no overlap and no gap, every attempt checked once, each difference recorded once; a
// run left 'running' by a dead process (its lease over) is taken over and completed.
import t from 'tap';
import { until } from '../helpers/wait.js';
import { callChild as call } from '../helpers/child.js';
import { startCluster } from '../helpers/cluster.js';
import { PG_URL } from '../helpers/env.js';
import { CARDS, card } from '../helpers/checkout.js';

if (!PG_URL) {
  t.plan(0, 'skipped: needs DATABASE_URL (several server processes share one Postgres; CI sets it)');
  process.exit(0);
}

const RECONCILING = { RECONCILIATION_INTERVAL_MS: '20', RECONCILIATION_WINDOW_MS: '1000', RECONCILIATION_DELAY_MS: '400' };
const cluster = await startCluster(t, 'recon', { ATTEMPT_RECOVERY_AFTER_MS: '400', ATTEMPT_RECOVERY_POLL_MS: '100', RECONCILIATION_INTERVAL_MS: '0' });
const { db } = cluster;
const n = async (sql: string) => Number((await db.query(sql)).rows[0].n);

t.test('two processes reconcile every window once', async (t) => {
  // Traffic through a process that does not reconcile: charges, a payout, a lost bank record.
  const a = await cluster.start();
  const m = await call(a, 'POST', '/internal/merchants', 'adm', { name: 'recon', rate_limit_per_minute: 1000000, currencies: ['AZN'] });
  await call(a, 'PATCH', `/internal/merchants/${m.body.id}`, 'adm', { card_data_allowed: true });
  const sk = (await call(a, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'secret', mode: 'test' })).body.key as string;
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) {
    const p = await call(a, 'POST', '/v2/payments', sk, { amount: 10_000 + i, currency: 'AZN', card: card(i === 2 ? CARDS.declined : CARDS.success) });
    t.equal(p.status, 200, p.text);
    ids.push(p.body.id);
  }
  const po = await call(a, 'POST', '/v2/payouts', sk, { amount: 700, currency: 'AZN', destination: { type: 'iban', iban: 'DE89370400440532013000' } }, { 'idempotency-key': 'recon-po' });
  t.equal(po.status, 200, po.text);
  await until('no attempt open', async () => (await n("SELECT count(*) AS n FROM connector_attempts WHERE status = 'started'")) === 0);
  const lost = (await db.query("SELECT id FROM connector_attempts WHERE aggregate_id = $1", [ids[0]])).rows[0].id as string;
  t.equal((await call(a, 'POST', '/internal/sandbox/bank/faults', 'adm', { action: 'lose', idempotency_key: lost })).status, 200);
  t.equal((await call(a, 'POST', '/internal/sandbox/bank/faults', 'adm', { action: 'add', amount: 123, currency: 'AZN', kind: 'payout' })).status, 201);
  const after = Number((await db.query('SELECT (extract(epoch FROM now()) * 1000)::float8 AS now')).rows[0].now);

  // A dead process's run of the first window: still 'running', its lease over.
  const first = Math.floor(Number((await db.query('SELECT (extract(epoch FROM min(created_at)) * 1000)::float8 AS t FROM connector_attempts')).rows[0].t) / 1000) * 1000;
  await db.query(`INSERT INTO reconciliation_runs (id, window_start, window_end, status, lease_until, claimed_by)
                  VALUES ('rcn_dead', to_timestamp($1 / 1000.0), to_timestamp($2 / 1000.0), 'running', now() - interval '1 second', 'dead-process')`, [first, first + 1000]);

  const b = await cluster.start(RECONCILING);
  const c = await cluster.start(RECONCILING);
  await until('windows reconciled past the faults', async () =>
    (await n(`SELECT count(*) AS n FROM reconciliation_runs WHERE status = 'completed' AND window_end > to_timestamp(${after} / 1000.0)`)) > 0
    && (await n(`SELECT count(*) AS n FROM reconciliation_runs WHERE status = 'running' AND window_end <= to_timestamp(${after} / 1000.0 + 1)`)) === 0, 60_000);

  t.match((await db.query("SELECT status, tries, claimed_by FROM reconciliation_runs WHERE id = 'rcn_dead'")).rows[0],
    { status: 'completed', tries: 2, claimed_by: /^\d+-/ }, 'the dead process\'s run taken over and completed');
  const closed = `window_end <= (SELECT max(window_end) FROM reconciliation_runs WHERE status = 'completed')`;
  t.equal(await n(`SELECT count(*) AS n FROM reconciliation_runs a JOIN reconciliation_runs b ON a.id < b.id
                   AND a.window_start < b.window_end AND b.window_start < a.window_end`), 0, 'no two runs share any time');
  t.equal(await n(`SELECT count(*) AS n FROM reconciliation_runs a WHERE ${closed} AND a.window_start > to_timestamp(${first} / 1000.0)
                   AND NOT EXISTS (SELECT 1 FROM reconciliation_runs b WHERE b.window_end = a.window_start)`), 0, 'no gap between windows');
  t.equal(await n(`SELECT sum(attempts_checked) AS n FROM reconciliation_runs WHERE status = 'completed'`),
    await n('SELECT count(*) AS n FROM connector_attempts'), 'every attempt checked in exactly one window');
  const diffs = (await db.query('SELECT kind, idempotency_key, connector FROM reconciliation_differences ORDER BY kind')).rows;
  t.equal(diffs.length, 2, JSON.stringify(diffs));
  t.match(diffs, [{ kind: 'missing_at_bank', idempotency_key: lost, connector: 'sandbox' }, { kind: 'missing_in_engine', idempotency_key: /^sbx_/, connector: 'sandbox' }]);
  const claimants = (await db.query("SELECT DISTINCT claimed_by FROM reconciliation_runs WHERE claimed_by <> 'dead-process'")).rows.length;
  t.ok(claimants >= 1 && claimants <= 2, `runs completed by ${claimants} of the two processes`);
  const metrics = await call(b, 'GET', '/metrics', 'adm');
  t.match(metrics.text, /reconciliation_differences\{kind="missing_at_bank"\} 1/);
  t.match(metrics.text, /reconciliation_differences\{kind="missing_in_engine"\} 1/);
  t.ok(c.proc.exitCode === null, 'the second reconciling process is still running');
});

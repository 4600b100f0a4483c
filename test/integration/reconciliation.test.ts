// Reconciliation (issue 26) end to end on one server: real charges, captures, voids and refunds
// through the APIs, differences made on purpose with the sandbox bank's fault helper, then the
// periodic reconciler (the server's own code, started here so that the faults come first) over the
// closed windows: each kind of difference found once and only once, a second pass over the same
// windows records nothing new, the operator routes (auth, list, one run, resolve/ignore with a note),
// the metrics, and the CLI.
import t from 'tap';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ADMIN, startTestServer } from '../helpers/server.js';
import { card, CARDS } from '../helpers/checkout.js';
import { until } from '../helpers/wait.js';
import { createLogger } from '../../src/log.js';
import { allConnectors } from '../../src/connectors/index.js';
import { reconcileRun, startReconciler } from '../../actors/reconciliation/reconciler.js';
import { checkReconciliation } from '../../sim/reconcile.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
// The server's own reconciler is off: this test starts one once every fault is in place.
const s = await startTestServer(t, { RECONCILIATION_INTERVAL_MS: '0' });
const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
await s.admin('PATCH', `/internal/merchants/${m.id}`, { card_data_allowed: true });
const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;

const charge = async (number: string, extra: Record<string, unknown> = {}) => {
  const r = await s.request('POST', '/v2/payments', { key: sk, body: { amount: 5000, currency: 'RUB', card: card(number), ...extra } });
  if (r.status !== 200) throw new Error(r.text);
  return r.body as { id: string; status: string };
};
const attemptOf = async (aggregateId: string, operation: string) =>
  (await s.db.query('SELECT id FROM connector_attempts WHERE aggregate_id = $1 AND operation = $2', [aggregateId, operation])).rows[0].id as string;
const fault = (body: unknown, key: string | null = ADMIN) => s.request('POST', '/internal/sandbox/bank/faults', { key, body });
const count = async (sql: string) => (await s.db.query(sql)).rows[0].n as number;
const cli = (...args: string[]) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', PAYMENTS_URL: s.url, ADMIN_TOKEN: ADMIN }, timeout: 30_000 },
    (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
});

// Clean traffic of every kind: a charge refunded in part, a capture, a void, a declined charge, a
// 3-D Secure charge left waiting for the customer; then four payments whose bank record is changed,
// one per kind of difference.
let lost = '';
let changed = '';
let flipped = '';
let attemptsBefore = 0;
t.before(async () => {
  const refunded = await charge(CARDS.success);
  const part = await s.request('POST', `/v2/payments/${refunded.id}/refund`, { key: sk, body: { amount: 900 } });
  if (part.status !== 200) throw new Error(part.text);
  const captured = await charge(CARDS.success, { capture_method: 'manual' });
  const cap = await s.request('POST', `/v2/payments/${captured.id}/capture`, { key: sk, body: { amount: 3000 } });
  if (cap.status !== 200) throw new Error(cap.text);
  const voided = await charge(CARDS.success, { capture_method: 'manual' });
  const cancel = await s.request('POST', `/v2/payments/${voided.id}/cancel`, { key: sk, body: {} });
  if (cancel.status !== 200) throw new Error(cancel.text);
  if ((await charge(CARDS.declined)).status !== 'failed') throw new Error('the declined card was not declined');
  await charge(CARDS.challenge);
  lost = await attemptOf((await charge(CARDS.success)).id, 'authorize_card');
  changed = await attemptOf((await charge(CARDS.success)).id, 'authorize_card');
  flipped = await attemptOf((await charge(CARDS.insufficient)).id, 'authorize_card');
  attemptsBefore = await count('SELECT count(*)::int AS n FROM connector_attempts');
});

t.test('the fault helper: operator only, each action checked, writes only the bank\'s ledger', async (t) => {
  const anon = await fault({ action: 'lose', idempotency_key: lost }, null);
  t.same([anon.status, anon.body.error.code], [401, 'admin_unauthorized']);
  t.equal((await fault({ action: 'lose', idempotency_key: lost }, m.key)).status, 401, 'a merchant key is not the operator');
  const missing = await fault({ action: 'add', currency: 'RUB' });
  t.same([missing.status, missing.body.error.code, missing.body.error.param], [422, 'parameter_missing', 'amount']);
  const stray = await fault({ action: 'lose', idempotency_key: lost, amount: 5 });
  t.same([stray.status, stray.body.error.code, stray.body.error.param], [422, 'parameter_unknown', 'amount']);
  const bad = await fault({ action: 'explode' });
  t.same([bad.status, bad.body.error.param], [422, 'action']);
  const unknown = await fault({ action: 'lose', idempotency_key: 'att_nope' });
  t.same([unknown.status, unknown.body.error.code], [404, 'sandbox_operation_not_found']);

  const l = await fault({ action: 'lose', idempotency_key: lost });
  t.match([l.status, l.body], [200, { object: 'sandbox_bank_operation', action: 'lose', idempotency_key: lost, operation: 'authorize_card', amount: 5000 }]);
  const c = await fault({ action: 'change_amount', idempotency_key: changed, amount: 4999 });
  t.match([c.status, c.body], [200, { amount: 4999, currency: 'RUB', outcome: 'succeeded' }]);
  const f = await fault({ action: 'change_outcome', idempotency_key: flipped, outcome: 'succeeded' });
  t.match([f.status, f.body], [200, { outcome: 'succeeded' }]);
  const a = await fault({ action: 'add', amount: 777, currency: 'rub' });
  t.match([a.status, a.body], [201, { action: 'add', idempotency_key: /^sbx_/, operation: 'authorize_card', amount: 777, currency: 'RUB', outcome: 'succeeded' }]);
  added = a.body.idempotency_key;
  t.equal(await count('SELECT count(*)::int AS n FROM connector_attempts'), attemptsBefore, 'no engine row written');
});
let added = '';

t.test('the reconciler finds each kind of difference once, and nothing in the clean traffic', async (t) => {
  const after = (await s.db.query('SELECT (extract(epoch FROM now()) * 1000)::float8 AS now')).rows[0].now as number;
  const log = createLogger('silent');
  const policy = { intervalMs: 50, windowMs: 1000, delayMs: 300, toleranceMs: 300, openWaitMs: 60_000, leaseSeconds: 30 };
  const r = startReconciler(s.db, allConnectors(s.db), policy, log)!;
  t.teardown(() => r.stop());
  await until('windows reconciled past the faults', async () =>
    (await count(`SELECT count(*)::int AS n FROM reconciliation_runs WHERE status = 'completed' AND window_end > to_timestamp(${after} / 1000.0)`)) > 0
    && (await count(`SELECT count(*)::int AS n FROM reconciliation_runs WHERE status = 'running'`)) === 0, 30_000);
  await r.stop();
  const diffs = (await s.db.query('SELECT idempotency_key AS key, kind FROM reconciliation_differences ORDER BY kind')).rows;
  t.same(diffs, [
    { key: changed, kind: 'amount_mismatch' }, { key: lost, kind: 'missing_at_bank' }, { key: added, kind: 'missing_in_engine' }, { key: flipped, kind: 'outcome_mismatch' },
  ]);
  const overlaps = await count(`SELECT count(*)::int AS n FROM reconciliation_runs a JOIN reconciliation_runs b ON a.id < b.id
                                AND a.window_start < b.window_end AND b.window_start < a.window_end`);
  t.equal(overlaps, 0, 'windows never overlap');
  const gaps = await count(`SELECT count(*)::int AS n FROM reconciliation_runs a WHERE a.window_end < (SELECT max(window_end) FROM reconciliation_runs)
                            AND NOT EXISTS (SELECT 1 FROM reconciliation_runs b WHERE b.window_start = a.window_end)`);
  t.equal(gaps, 0, 'each window starts where the one before ended');
  const attempts = await count('SELECT sum(attempts_checked)::int AS n FROM reconciliation_runs');
  t.equal(attempts, await count('SELECT count(*)::int AS n FROM connector_attempts'), 'every attempt checked once');

  // A second pass over the same windows (as a process taking over a run would make): nothing new.
  const runs = (await s.db.query(`SELECT id, (extract(epoch FROM window_start) * 1000)::float8 AS ws, (extract(epoch FROM window_end) * 1000)::float8 AS we, tries FROM reconciliation_runs`)).rows;
  let found = 0;
  for (const run of runs) {
    const again = await reconcileRun(s.db, allConnectors(s.db), { id: run.id, windowStart: run.ws, windowEnd: run.we, status: 'running', tries: run.tries }, 'second-pass', 300);
    t.equal(again.recorded, 0, 'no duplicate difference');
    t.notOk(again.completed, 'a completed run is not completed again');
    found += again.differences;
  }
  t.equal(found, 4, 'the second pass sees the same four');
  t.equal(await count('SELECT count(*)::int AS n FROM reconciliation_differences'), 4);
});

t.test('operator routes: auth, the list, one run with its differences, resolve and ignore with a note', async (t) => {
  t.equal((await s.request('GET', '/internal/reconciliation/runs')).status, 401);
  t.equal((await s.request('GET', '/internal/reconciliation/runs', { key: 'wrong' })).status, 401);
  t.equal((await s.request('POST', '/internal/reconciliation/differences/rcd_x', { key: sk, body: { status: 'open' } })).status, 401);
  const list = await s.admin('GET', '/internal/reconciliation/runs?limit=100');
  t.equal(list.status, 200);
  t.match(list.body, { object: 'list', has_more: false });
  const withDiffs = list.body.data.filter((r: { differences: number }) => r.differences > 0);
  t.ok(withDiffs.length >= 1);
  t.equal(withDiffs.reduce((n: number, r: { open_differences: number }) => n + r.open_differences, 0), 4);
  const starts = list.body.data.map((r: { window_start: string }) => r.window_start);
  t.same(starts, [...starts].sort().reverse(), 'newest window first');
  const page = await s.admin('GET', '/internal/reconciliation/runs?limit=1');
  t.equal(page.body.has_more, list.body.data.length > 1);
  const next = await s.admin('GET', `/internal/reconciliation/runs?limit=1&before=${page.body.data[0].id}`);
  if (list.body.data.length > 1) t.equal(next.body.data[0].id, list.body.data[1].id, 'before= pages on');
  t.equal((await s.admin('GET', '/internal/reconciliation/runs?limit=0')).body.error.code, 'limit_invalid');

  const one = await s.admin('GET', `/internal/reconciliation/runs/${withDiffs[0].id}`);
  t.equal(one.status, 200);
  t.match(one.body, { id: withDiffs[0].id, object: 'reconciliation_run', status: 'completed', window_start: String, window_end: String });
  const lostDiff = (await s.admin('GET', '/internal/reconciliation/differences')).body.data.find((d: { idempotency_key: string }) => d.idempotency_key === lost);
  t.match(lostDiff, {
    object: 'reconciliation_difference', kind: 'missing_at_bank', connector: 'sandbox', aggregate_id: String, status: 'open', note: null,
    engine: { kind: 'charge', amount: 5000, currency: 'RUB', outcome: 'succeeded' }, bank: null,
  });
  const changedDiff = (await s.admin('GET', '/internal/reconciliation/differences?limit=100')).body.data.find((d: { idempotency_key: string }) => d.idempotency_key === changed);
  t.match(changedDiff, { kind: 'amount_mismatch', engine: { amount: 5000 }, bank: { amount: 4999, outcome: 'succeeded' } });
  t.equal((await s.admin('GET', '/internal/reconciliation/runs/rcn_nope')).body.error.code, 'reconciliation_run_not_found');

  const noNote = await s.admin('POST', `/internal/reconciliation/differences/${lostDiff.id}`, { status: 'resolved' });
  t.same([noNote.status, noNote.body.error.code, noNote.body.error.param], [422, 'parameter_missing', 'note']);
  const res = await s.admin('POST', `/internal/reconciliation/differences/${lostDiff.id}`, { status: 'resolved', note: 'bank file re-sent; entry restored' });
  t.match([res.status, res.body], [200, { id: lostDiff.id, status: 'resolved', note: 'bank file re-sent; entry restored', status_changed_at: String }]);
  const ign = await s.admin('POST', `/internal/reconciliation/differences/${changedDiff.id}`, { status: 'ignored', note: 'rounding at the bank, agreed' });
  t.match(ign.body, { status: 'ignored', note: 'rounding at the bank, agreed' });
  t.equal((await s.admin('POST', '/internal/reconciliation/differences/rcd_nope', { status: 'open' })).body.error.code, 'reconciliation_difference_not_found');
  t.equal((await s.admin('POST', `/internal/reconciliation/differences/${lostDiff.id}`, { status: 'done', note: 'x' })).status, 422);
  const open = await s.admin('GET', '/internal/reconciliation/differences?status=open');
  t.same(open.body.data.map((d: { kind: string }) => d.kind).sort(), ['missing_in_engine', 'outcome_mismatch']);
  t.equal((await s.admin('GET', '/internal/reconciliation/differences?status=nope')).status, 422);
});

t.test('metrics: open differences by kind and the last run\'s age', async (t) => {
  const text = (await s.request('GET', '/metrics', { key: ADMIN })).text;
  const value = (line: string) => Number(text.split('\n').find((l) => l.startsWith(line))?.slice(line.length + 1));
  t.equal(value('reconciliation_differences{kind="missing_in_engine"}'), 1);
  t.equal(value('reconciliation_differences{kind="outcome_mismatch"}'), 1);
  t.equal(value('reconciliation_differences{kind="missing_at_bank"}'), 0, 'resolved is not open');
  t.equal(value('reconciliation_differences{kind="amount_mismatch"}'), 0, 'ignored is not open');
  const age = value('reconciliation_last_run_age_seconds');
  t.ok(age >= 0 && Number.isFinite(age), `age ${age}`);
});

t.test('the CLI: recon runs, differences, show, resolve, reopen, fault', async (t) => {
  const runs = await cli('recon', 'runs', '--limit', '100');
  t.equal(runs.code, 1, 'exit 1 while a run has open differences');
  t.ok(JSON.parse(runs.stdout).data.length >= 1);
  const open = await cli('recon', 'differences', '--quiet');
  t.same([open.code, open.stdout.trim()], [0, '2']);
  const overview = await cli('recon');
  t.equal(overview.code, 1, 'bare recon: exit 1 while a difference is open');
  t.match(JSON.parse(overview.stdout), { open_differences: [{ status: 'open' }, { status: 'open' }], latest_runs: Array });
  const diffs = JSON.parse((await cli('recon', 'differences')).stdout).data as { id: string; run_id: string; kind: string }[];
  const shown = JSON.parse((await cli('recon', 'show', diffs[0].run_id)).stdout);
  t.ok(shown.difference_list.some((d: { id: string }) => d.id === diffs[0].id));
  const usage = await cli('recon', 'resolve', diffs[0].id);
  t.equal(usage.code, 2, 'the note is required');
  for (const d of diffs) {
    const r = await cli('recon', 'resolve', d.id, '--note', 'checked with the bank', '--quiet');
    t.same([r.code, r.stdout.trim()], [0, 'resolved'], r.stderr);
  }
  t.equal((await cli('recon', 'runs', '--quiet')).code, 0, 'exit 0 once nothing is open');
  t.same(await cli('recon', '--quiet').then((r) => [r.code, r.stdout.trim()]), [0, '0']);
  const again = await cli('recon', 'reopen', diffs[0].id, '--quiet');
  t.same([again.code, again.stdout.trim()], [0, 'open']);
  const ign = await cli('recon', 'ignore', diffs[0].id, '--note', 'test entry', '--quiet');
  t.equal(ign.stdout.trim(), 'ignored');
  const f = await cli('recon', 'fault', 'add', '--amount', '100', '--currency', 'RUB', '--kind', 'refund', '--quiet');
  t.equal(f.code, 0, f.stderr);
  t.match(f.stdout.trim(), /^sbx_/);
  const bad = await cli('recon', 'fault', 'lose', '--key', 'att_nope');
  t.equal(bad.code, 1);
  t.match(bad.stderr, /sandbox_operation_not_found/);
});

t.test('the simulator\'s check (e) flags every difference made here (it passes only on a clean day)', async (t) => {
  const { violations } = await checkReconciliation(s.db);
  const direct = violations.filter((v) => v.cls.startsWith('reconciliation finds')).map((v) => v.cls.split(' ').pop()).sort();
  // The four of the reconciler test and the refund the CLI test added.
  t.same(direct, ['amount_mismatch', 'missing_at_bank', 'missing_in_engine', 'missing_in_engine', 'outcome_mismatch']);
  t.equal(violations.filter((v) => v.cls.startsWith('a server\'s reconciliation run recorded')).length, 4, 'and every recorded difference');
  t.ok(violations.every((v) => v.check === 'e'));
});

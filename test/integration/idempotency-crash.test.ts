// Idempotency across crashes, with real server processes: a process killed between claiming a key
// and answering does not lock the key; the retry with the same key returns the payment that
// committed (exactly one row), or creates it once if nothing committed; a worker death answers
// outcome_unknown and the retry returns the committed result.
import t from 'tap';
import { callChild, type Child, sendUntilDead } from '../helpers/child.js';
import { startCluster } from '../helpers/cluster.js';
import { PG_URL, suffix } from '../helpers/env.js';

if (!PG_URL) {
  t.plan(0, 'skipped: needs DATABASE_URL (the restarted process must find the first one\'s rows; CI sets it)');
  process.exit(0);
}

const cluster = await startCluster(t, 'idc');
const { db } = cluster;
const start = cluster.start;
const call = (c: Child, method: string, p: string, key: string, body?: unknown, idem?: string) =>
  callChild(c, method, p, key, body, idem ? { 'idempotency-key': idem } : {});

const main = await start();
const m = await call(main, 'POST', '/internal/merchants', 'adm', { name: 'idem crash', rate_limit_per_minute: 1000000 });
const key = (await call(main, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'merchant', mode: 'test' })).body.key as string;
const rows = async (idem: string) => (await db.query('SELECT id FROM payments WHERE idempotency_key = $1', [idem])).rows.map((r) => r.id as string);

t.test('killed after the commit, before the answer: the retry replays the committed payment', async (t) => {
  const doomed = await start({ FAILPOINTS: 'after-create-commit:kill' });
  const idem = `crash-commit-${suffix()}`;
  await sendUntilDead(t, doomed, () => call(doomed, 'POST', '/api/v2/payments', key, { amount: 700 }, idem), 'the connection dies with the process');
  const committed = await rows(idem);
  t.equal(committed.length, 1, 'the payment committed before the crash');
  const retry = await call(main, 'POST', '/api/v2/payments', key, { amount: 700 }, idem);
  t.equal(retry.status, 201);
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  t.equal(retry.body.id, committed[0], 'the committed payment, not a new one');
  t.same(await rows(idem), committed, 'still exactly one row');
  const other = await call(main, 'POST', '/api/v2/payments', key, { amount: 701 }, idem);
  t.equal(other.status, 409, 'another body under the same key is still a conflict');
  t.equal(other.body.error.code, 'idempotency_conflict');
});

t.test('killed after claiming the key, before anything committed: the key is free after the request deadline and creates once', async (t) => {
  const doomed = await start({ FAILPOINTS: 'after-idempotency-claim:kill' });
  const idem = `crash-claim-${suffix()}`;
  await sendUntilDead(t, doomed, () => call(doomed, 'POST', '/api/v2/payments', key, { amount: 800 }, idem));
  t.same(await rows(idem), [], 'nothing committed');
  let r = await call(main, 'POST', '/api/v2/payments', key, { amount: 800 }, idem);
  const deadline = Date.now() + 10_000;
  while (r.status === 409 && Date.now() < deadline) {
    t.equal(r.body.error.code, 'idempotency_key_in_use', 'while the dead request\'s marker lives, the key is in use');
    t.ok(r.headers.get('retry-after'), 'with Retry-After');
    await new Promise((res) => setTimeout(res, Number(r.headers.get('retry-after')) * 1000));
    r = await call(main, 'POST', '/api/v2/payments', key, { amount: 800 }, idem);
  }
  t.equal(r.status, 201, 'then the retry creates the payment');
  t.same(await rows(idem), [r.body.id], 'once');
});

t.test('a worker dies after the commit: outcome_unknown, and the retry returns the committed result', async (t) => {
  const flaky = await start({ FAILPOINTS: 'after-create-commit:exit-thread' });
  const idem = `crash-worker-${suffix()}`;
  const first = await call(flaky, 'POST', '/api/v2/payments', key, { amount: 900 }, idem);
  t.equal(first.status, 503);
  t.equal(first.body.error.code, 'outcome_unknown');
  t.ok(first.headers.get('retry-after'));
  const committed = await rows(idem);
  t.equal(committed.length, 1);
  const retry = await call(main, 'POST', '/api/v2/payments', key, { amount: 900 }, idem);
  t.equal(retry.status, 201);
  t.equal(retry.body.id, committed[0]);
  t.same(await rows(idem), committed);
});

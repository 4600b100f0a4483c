// A difference the recovery sweep will still resolve is not a difference yet (issue 26): a window
// whose attempt is still open (the process died between the bank's charge and the engine's record)
// is not reconciled until recovery settles it, then it is clean; only after the longest wait is it
// compared with the attempt open, and the bank's charge reported against it.
import t from 'tap';
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PG_URL, freshDatabase } from '../helpers/env.js';
import { migrate } from '../../src/store/migrate.js';
import { startEmbedded } from '../../src/store/embedded.js';
import { createLogger } from '../../src/log.js';
import { allConnectors } from '../../src/connectors/index.js';
import { checkCard } from '../../src/domain/card.js';
import { claimNextWindow } from '../../src/store/reconciliation-repo.js';
import { reconcileRun } from '../../actors/reconciliation/reconciler.js';

let url: string;
let dispose: () => Promise<void>;
if (PG_URL) {
  const d = await freshDatabase('recopen');
  url = d.url;
  dispose = () => d.drop();
} else {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pe-recopen-'));
  const e = await startEmbedded(dir, createLogger('silent'));
  url = e.url;
  dispose = async () => { await e.stop(); rmSync(dir, { recursive: true, force: true }); };
}
const db = new pg.Pool({ connectionString: url, max: 4 });
db.on('error', () => {});
t.teardown(async () => { await db.end(); await dispose(); });
await migrate(db);
const connectors = allConnectors(db);
const sandbox = connectors.find((c) => c.name === 'sandbox')!;
const card = checkCard({ number: '4242424242424242', exp_month: '12', exp_year: '2034', cvc: '123' }, Date.now());
if (!card.ok) throw new Error(card.code);

/**
 * An attempt recorded about `agoMs` ago and charged at the bank, whose outcome the engine never
 * recorded. It is placed 200 ms into a whole second, so that with 1 s windows the bank's charge
 * (100 ms later) always falls in the attempt's own window, whatever the clock says when this runs.
 */
async function crashedCharge(id: string, agoMs: number) {
  await db.query(`INSERT INTO connector_attempts (id, aggregate_id, operation, connector, amount, currency, status, created_at)
                  VALUES ($1, 'cs_crashed', 'authorize_card', 'sandbox', 5000, 'RUB', 'started',
                          date_trunc('second', now() - make_interval(secs => $2::float8 / 1000)) + interval '200 milliseconds')`, [id, agoMs]);
  const r = await sandbox.authorizeCard({ attemptId: id, paymentId: 'cs_crashed', amount: 5000, currency: 'RUB', livemode: false, baseUrl: 'http://x' }, card.ok ? card.card : (null as never));
  if (r.kind !== 'succeeded') throw new Error(JSON.stringify(r));
  // The bank charged during the call, 100 ms after the attempt was recorded.
  await db.query(`UPDATE sandbox_ledger SET created_at = (SELECT created_at FROM connector_attempts WHERE id = $1) + interval '100 milliseconds'
                  WHERE idempotency_key = $1`, [id]);
}
const policy = { windowMs: 1000, delayMs: 2000, openWaitMs: 3_600_000, leaseSeconds: 30 };

t.test('the window waits for its open attempt, and is clean once recovery has settled it', async (t) => {
  await crashedCharge('att_open_1', 20_000);
  const held = await claimNextWindow(db, 'p1', policy);
  t.match(held, { waiting: 'open_attempts' }, 'not reconciled while the attempt is open');
  t.equal((await db.query('SELECT count(*)::int AS n FROM reconciliation_runs')).rows[0].n, 0, 'no run claimed');
  // What the recovery sweep does: asks the bank, records its answer.
  const answer = await sandbox.lookup('att_open_1');
  await db.query("UPDATE connector_attempts SET status = 'succeeded', result = $2, updated_at = now() WHERE id = $1", ['att_open_1', JSON.stringify(answer)]);
  const next = await claimNextWindow(db, 'p1', policy);
  t.ok('run' in next, 'claimed once settled');
  if (!('run' in next)) return;
  const r = await reconcileRun(db, connectors, next.run, 'p1', policy.delayMs);
  t.match(r, { attempts: 1, bank: 1, differences: 0, completed: true });
});

t.test('past the longest wait, a bank charge against an attempt still open is a difference', async (t) => {
  // The first window now ends at the settled attempt's; the next one is claimed for this one's.
  await crashedCharge('att_open_2', 10_000);
  let found = 0;
  for (let i = 0; i < 100; i++) {
    const next = await claimNextWindow(db, 'p1', { ...policy, openWaitMs: 0 });
    if (!('run' in next)) break;
    const r = await reconcileRun(db, connectors, next.run, 'p1', policy.delayMs);
    found += r.differences;
  }
  const diffs = (await db.query('SELECT idempotency_key, kind, engine, bank FROM reconciliation_differences')).rows;
  t.equal(found, 1);
  t.match(diffs, [{ idempotency_key: 'att_open_2', kind: 'outcome_mismatch', engine: { outcome: 'open' }, bank: { outcome: 'succeeded', amount: 5000 } }]);
});

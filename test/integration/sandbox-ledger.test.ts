// The sandbox bank's ledger in Postgres: a repeated idempotency key gets the first result and moves
// no money twice, even from many callers at once; one challenge is settled once whatever keys repeat
// it; a status query answers the first result, and closes a key the bank never saw so that a later
// call with it is refused.
import t from 'tap';
import { TEST_IBANS } from '../../src/connectors/sandbox/cards.js';
import pg from 'pg';
import { PG_URL, freshDatabase } from '../helpers/env.js';
import { migrate } from '../../src/store/migrate.js';
import { SandboxLedger } from '../../src/connectors/sandbox/ledger.js';
import { createSandboxConnector } from '../../src/connectors/sandbox/connector.js';
import { checkCard } from '../../src/domain/card.js';
import { startEmbedded } from '../../src/store/embedded.js';
import { createLogger } from '../../src/log.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let url: string;
let dispose: () => Promise<void>;
if (PG_URL) {
  const d = await freshDatabase('ledger');
  url = d.url;
  dispose = () => d.drop();
} else {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pe-ledger-'));
  const e = await startEmbedded(dir, createLogger('silent'));
  url = e.url;
  dispose = async () => { await e.stop(); rmSync(dir, { recursive: true, force: true }); };
}
const db = new pg.Pool({ connectionString: url, max: 16 });
db.on('error', () => {}); // an idle client cut by the server's stop at teardown is expected
t.teardown(async () => { await db.end(); await dispose(); });
await migrate(db);
const bank = createSandboxConnector(new SandboxLedger(db));

const card = (number: string) => {
  const r = checkCard({ number, exp_month: '12', exp_year: '2034', cvc: '123' }, Date.now());
  if (!r.ok) throw new Error(r.code);
  return r.card;
};
const req = (attemptId: string) => ({ attemptId, paymentId: 'EXZ-20261123-AAAAAAAAAA', amount: 500, currency: 'RUB', livemode: false, baseUrl: 'http://pay.test' });
const moved = async (key: string) => (await db.query('SELECT count(*)::int AS n FROM sandbox_ledger WHERE idempotency_key = $1 AND moved', [key])).rows[0].n;

t.test('30 callers with one key at once: one entry, one charge, everyone gets the same answer', async (t) => {
  const results = await Promise.all(Array.from({ length: 30 }, () => bank.authorizeCard(req('att_same'), card('4242424242424242'))));
  for (const r of results) t.same(r, results[0], 'one answer');
  t.equal(results[0].kind, 'succeeded');
  t.equal(await moved('att_same'), 1);
});

t.test('the first decision stands for its key, whatever a repeat asks', async (t) => {
  const first = await bank.authorizeCard(req('att_first'), card('4000000000000002'));
  t.match(first, { kind: 'failed', code: 'card_declined' });
  const again = await bank.authorizeCard(req('att_first'), card('4242424242424242'));
  t.same(again, first, 'a repeated key is not a new charge');
  t.equal(await moved('att_first'), 0);
});

t.test('one challenge settles once, whatever keys repeat it', async (t) => {
  const a = await bank.authorizeCard(req('att_3ds'), card('4000000000003220'));
  if (a.kind !== 'three_ds') throw new Error(a.kind);
  const done = await Promise.all(['att_c1', 'att_c2', 'att_c3'].map((k, i) => bank.completeChallenge(req(k), a.ref, i === 1 ? 'N' : 'Y')));
  for (const r of done) t.same(r, done[0], 'every caller sees the one outcome');
  const { rows } = await db.query("SELECT count(*)::int AS n FROM sandbox_ledger WHERE operation = 'complete_challenge' AND reference = $1", [a.ref]);
  t.equal(rows[0].n, 1);
});

t.test('a status query answers the first result, and closes an unknown key for good', async (t) => {
  const paid = await bank.chargeWalletToken(req('att_known'), 'tok_ok');
  t.same(await bank.lookup('att_known'), paid);
  t.same(await bank.lookup('att_never'), { kind: 'unknown_attempt' });
  const late = await bank.authorizeCard(req('att_never'), card('4242424242424242'));
  t.same(late, { kind: 'error', code: 'payment_attempt_interrupted' }, 'the late call is refused');
  t.equal(await moved('att_never'), 0, 'and moves nothing');
});

// Grouped writes (issue 25): calls of one thread share statements; two pools stand for two processes.
const otherProcess = new pg.Pool({ connectionString: url, max: 4 });
otherProcess.on('error', () => {});
t.teardown(() => otherProcess.end());
const bankB = createSandboxConnector(new SandboxLedger(otherProcess));

t.test('one key at once from two processes, many callers each: one entry, one charge, one answer for all', async (t) => {
  const calls = Array.from({ length: 40 }, (_, i) => (i % 2 ? bank : bankB).authorizeCard(req('att_two_pools'), card('4242424242424242')));
  const results = await Promise.all(calls);
  for (const r of results) t.same(r, results[0], 'one answer');
  t.equal(results[0].kind, 'succeeded');
  const { rows } = await db.query('SELECT count(*)::int AS n FROM sandbox_ledger WHERE idempotency_key = $1', ['att_two_pools']);
  t.equal(rows[0].n, 1, 'one entry');
  t.equal(await moved('att_two_pools'), 1);
});

t.test('calls that arrive together share one statement, and a repeat of a held key reads its winner', async (t) => {
  const { sandboxBankStats: s } = await import('../../src/connectors/sandbox/ledger.js');
  const before = s.statements;
  const keys = Array.from({ length: 20 }, (_, i) => `att_grouped_${i}`);
  const first = await Promise.all(keys.map((k) => bank.payout(req(k), { type: 'iban', account: TEST_IBANS.paid, bic: null, memberId: null })));
  t.ok(first.every((r) => r.kind === 'succeeded'));
  t.equal(s.statements - before, 1, 'twenty calls, one statement');
  const again = await Promise.all(keys.map((k) => bank.payout(req(k), { type: 'iban', account: TEST_IBANS.refused, bic: null, memberId: null })));
  t.same(again, first, 'a repeated key answers its first result');
  t.equal(s.statements - before, 3, 'the repeats: one insert that conflicts, one read of the winners');
});

t.test('a group with a row Postgres refuses still records the others; the bad row fails alone', async (t) => {
  const ledger = new SandboxLedger(db);
  const ok = (key: string) => ledger.once({ key, operation: 'payout', reference: null, amount: 100, currency: 'RUB' }, async () => ({ kind: 'succeeded' as const, ref: `sbx_po_${key}` }));
  const bad = ledger.once({ key: 'att_iso_bad', operation: 'payout', reference: null, amount: 1.5, currency: 'RUB' }, async () => ({ kind: 'succeeded' as const, ref: 'sbx_po_bad' }));
  const goods = ['att_iso_1', 'att_iso_2', 'att_iso_3', 'att_iso_4', 'att_iso_5'].map(ok);
  const [badResult, ...goodResults] = await Promise.allSettled([bad, ...goods]);
  t.equal(badResult.status, 'rejected', 'the bad row fails');
  for (const r of goodResults) t.match(r, { status: 'fulfilled', value: { kind: 'succeeded' } });
  const { rows } = await db.query("SELECT idempotency_key FROM sandbox_ledger WHERE idempotency_key LIKE 'att_iso_%' ORDER BY 1");
  t.same(rows.map((r) => r.idempotency_key), ['att_iso_1', 'att_iso_2', 'att_iso_3', 'att_iso_4', 'att_iso_5'], 'every good row is recorded');
});

t.test('one challenge settled from two processes with fresh keys each: one entry, one outcome', async (t) => {
  const a = await bank.authorizeCard(req('att_3ds_two'), card('4000000000003220'));
  if (a.kind !== 'three_ds') throw new Error(a.kind);
  const done = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? bank : bankB).completeChallenge(req(`att_c2_${i}`), a.ref, 'Y')));
  for (const r of done) t.same(r, done[0], 'every caller sees the one outcome');
  const { rows } = await db.query("SELECT count(*)::int AS n FROM sandbox_ledger WHERE operation = 'complete_challenge' AND reference = $1", [a.ref]);
  t.equal(rows[0].n, 1);
});

t.test('a status query and a call with one key at once: the key is either closed or the call stands, for both', async (t) => {
  const [looked, called] = await Promise.all([bankB.lookup('att_race'), bank.chargeWalletToken(req('att_race'), 'tok_ok')]);
  if (looked.kind === 'unknown_attempt') t.same(called, { kind: 'error', code: 'payment_attempt_interrupted' }, 'closed first: the call is refused');
  else t.same(looked, called, 'called first: the query answers it');
  t.equal(await moved('att_race'), looked.kind === 'unknown_attempt' ? 0 : 1);
});

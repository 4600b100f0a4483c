// The sandbox bank's ledger in Postgres: a repeated idempotency key gets the first result and moves
// no money twice, even from many callers at once; one challenge is settled once whatever keys repeat
// it; a status query answers the first result, and closes a key the bank never saw so that a later
// call with it is refused.
import t from 'tap';
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

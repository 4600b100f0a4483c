// A migration that adds a column must not break a process still running the previous release: its
// named statements were prepared on its connections with the result type of that moment, and a
// statement that reads `*` then fails ("cached plan must not change result type", 0A000) once on
// each connection, which the pool drops. The named statements that read whole rows list their
// columns (src/store/columns.ts); the lists are those of the migrated schema. Checked by mutation:
// on the `*` statements, 18 of the 19 reads below fail after the added columns.
import t from 'tap';
import pg from 'pg';
import { COLUMNS } from '../../src/store/columns.js';
import { readBeforeAttempts } from '../../src/store/attempt-reads.js';
import { findAttempt } from '../../src/store/attempts-repo.js';
import { defaultChannelsOf } from '../../src/store/channels-repo.js';
import { loadCheckout } from '../../src/store/checkout-repo.js';
import { findGatewayPayment, gatewayRowsByIds } from '../../src/store/gateway-payments-repo.js';
import { findLink, findLinkByIdempotencyKey } from '../../src/store/links-repo.js';
import { getMerchant } from '../../src/store/merchants-repo.js';
import { paymentRowsByIds } from '../../src/store/payment-reads.js';
import { findByIdempotencyKey, findPayment, findPaymentByOrder } from '../../src/store/payments-repo.js';
import { findPayout, findPayoutKey, listPayouts } from '../../src/store/payouts-repo.js';
import { findRefundByAttempt, listRefunds } from '../../src/store/refunds-repo.js';
import { listActiveSbpMembers } from '../../src/store/sbp-members-repo.js';
import { PG_URL, freshDatabase, testPool } from '../helpers/env.js';

if (!PG_URL) t.plan(0, 'skipped: needs DATABASE_URL (the migrated schema is read from Postgres; CI sets it)');
else {
  const database = await freshDatabase('cols');
  // testPool: the teardown's drop may tell a client still closing that it was terminated (57P01).
  const db = testPool(database.url, 1);
  t.teardown(async () => { await db.end(); await database.drop(); });

  t.test('the listed columns are the migrated tables\' columns, in order', async (t) => {
    for (const [table, listed] of Object.entries(COLUMNS)) {
      const { rows } = await db.query(
        "SELECT column_name AS c FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position", [table]);
      t.same(rows.map((r) => r.c), listed, `${table}: src/store/columns.ts lists what the migrations made`);
    }
  });

  const m = 'mer_000000000000000000000000';
  const reads: [string, (db: pg.Pool) => Promise<unknown>][] = [
    ['attempt_by_id', (db) => findAttempt(db, 'att_none')],
    ['before_attempts', (db) => readBeforeAttempts(db, [{ paymentId: 'pay_none', chargeRef: true, refundTermsOf: 'sandbox', refundKey: { merchantId: m, livemode: false, key: 'k' }, attemptScope: 's', gatewayView: true }])],
    ['channels_default', (db) => defaultChannelsOf(db, [{ merchantId: m, livemode: false }])],
    ['checkout_by_id', (db) => loadCheckout(db, 'pay_none')],
    ['gateway_payment_by_key', (db) => findGatewayPayment(db, { merchantId: m, livemode: false, channelId: null }, 'cs_none')],
    ['gateway_payments_by_ids', (db) => gatewayRowsByIds(db, ['cs_none'])],
    ['link_by_id', (db) => findLink(db, 'plink_none')],
    ['link_by_idem', (db) => findLinkByIdempotencyKey(db, m, false, 'k')],
    ['merchant_by_id', (db) => getMerchant(db, m)],
    ['payments_by_ids', (db) => paymentRowsByIds(db, ['pay_none'])],
    ['payment_by_idem', (db) => findByIdempotencyKey(db, m, false, 'k')],
    ['payment_by_id', (db) => findPayment(db, 'pay_none')],
    ['payment_by_order', (db) => findPaymentByOrder(db, m, false, 'o')],
    ['payout_by_id', (db) => findPayout(db, 'po_none')],
    ['payout_key_holds', (db) => findPayoutKey(db, m, false, 'k')],
    ['payouts_list', (db) => listPayouts(db, { merchantId: m, livemode: false, status: null, limit: 10, offset: 0 })],
    ['refund_by_attempt', (db) => findRefundByAttempt(db, 'att_none')],
    ['refunds_of_payment', (db) => listRefunds(db, 'pay_none', 10)],
    ['sbp_members_active', (db) => listActiveSbpMembers(db)],
  ];

  t.test('every named read of whole rows still works after a migration adds a column to its table', async (t) => {
    // Each read on a connection of its own: a failed query makes the pool drop its connection, and
    // the reads after it would prepare afresh on a new one.
    for (const [i, [name, read]] of reads.entries()) {
      const db = testPool(database.url, 1);
      try {
        await read(db);
        const prepared = (await db.query<{ name: string }>('SELECT name FROM pg_prepared_statements')).rows.map((r) => r.name);
        t.ok(prepared.includes(name), `${name} is a prepared statement on the connection`);
        for (const table of Object.keys(COLUMNS)) await db.query(`ALTER TABLE ${table} ADD COLUMN added_by_release_${i} int`);
        const err = await read(db).then(() => null, (e: { code?: string; message: string }) => `${e.code}: ${e.message}`);
        t.equal(err, null, `${name} answers after the new columns`);
      } finally {
        await db.end();
      }
    }
  });
}

// Migrations on an existing database: 011 on merchants (each gets one default channel per mode,
// and a key naming no channel is revoked instead of being widened to every channel); 026's room on
// the pages of the tables updated in place; 027's due_at, filled in for the payments already stored,
// and no index of payments naming status (so a status change can be a HOT update); 028's kept
// balances, filled in from the payments already settled.
import t from 'tap';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { withDatabase } from '../../src/store/db.js';
import { CLAIM_DUE_SQL, CLAIM_LAPSED_SQL } from '../../src/store/payments-repo.js';
import { DATABASE_FIGURES_SQL } from '../../src/metrics/database.js';
import { balanceDrift } from '../../src/store/balance-settled.js';
import { startTestServer } from '../helpers/server.js';
import { suffix, testPool } from '../helpers/env.js';
import { until } from '../helpers/wait.js';

const s = await startTestServer(t);
const name = `mig_${suffix()}`;
await s.db.query(`CREATE DATABASE ${name}`);
const pool = testPool(withDatabase(s.srv.databaseUrl, name), 2);
t.teardown(async () => { await pool.end(); await s.db.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {}); });

t.test('existing merchants get default channels; keys naming no channel are revoked', async (t) => {
  await migrate(pool, listMigrations().filter((m) => m.version <= 10));
  await pool.query(`INSERT INTO merchants (id, name, default_currency, currencies) VALUES ('mer_a', 'A', 'AZN', '{AZN}'), ('mer_b', 'B', 'AZN', '{AZN}')`);
  await pool.query(`INSERT INTO api_keys (id, merchant_id, kind, mode, key_hash, key_hint, channel_id) VALUES
    ('key_1', 'mer_a', 'secret', 'test', 'h1', 'x', 'bogus'), ('key_2', 'mer_a', 'secret', 'test', 'h2', 'x', NULL)`);
  const applied = await migrate(pool, listMigrations().filter((m) => m.version <= 26));
  t.ok(applied.includes('011_channels.sql'));
  const ch = await pool.query('SELECT merchant_id, livemode, slug, is_default, status, id, webhook_secret FROM channels ORDER BY merchant_id, livemode');
  t.same(ch.rows.map((r) => [r.merchant_id, r.livemode, r.slug, r.is_default, r.status]),
    [['mer_a', false, 'default', true, 'active'], ['mer_a', true, 'default', true, 'active'], ['mer_b', false, 'default', true, 'active'], ['mer_b', true, 'default', true, 'active']]);
  for (const r of ch.rows) t.match(r.id, /^ch_[0-9a-f]{20}$/);
  const keys = await pool.query('SELECT id, channel_id, revoked_at FROM api_keys ORDER BY id');
  t.equal(keys.rows[0].channel_id, null);
  t.ok(keys.rows[0].revoked_at, 'the key naming a missing channel is revoked');
  t.equal(keys.rows[1].revoked_at, null, 'an unscoped key is untouched');
});

t.test('the database refuses a second default and a paused default', async (t) => {
  const constraintOf = (p: Promise<unknown>) => p.then(() => null, (e: { constraint?: string }) => e.constraint);
  t.equal(await constraintOf(pool.query(`INSERT INTO channels (id, merchant_id, livemode, slug, name, is_default, webhook_secret) VALUES ('ch_x', 'mer_a', false, 'x', 'X', true, 's')`)),
    'channels_one_default');
  t.equal(await constraintOf(pool.query(`UPDATE channels SET status = 'paused' WHERE merchant_id = 'mer_a' AND is_default`)), 'channels_default_active');
});

t.test('migration 026: the tables updated in place leave room on their pages for HOT updates', async (t) => {
  const r = await pool.query<{ relname: string; reloptions: string[] | null }>(
    `SELECT relname, reloptions FROM pg_class WHERE relname IN ('payments', 'refunds') AND relkind = 'r' ORDER BY relname`);
  t.same(r.rows.map((x) => [x.relname, x.reloptions]), [['payments', ['fillfactor=80']], ['refunds', ['fillfactor=80']]]);
});

t.test('migration 027: the payments stored before it get their due_at; no index of payments names status', async (t) => {
  // Rows as a version before 027 left them: open ones (one with an attempt in flight), settled ones.
  const rows: [string, string, string | null][] = [
    ['pay_pending', 'pending', null], ['pay_in_flight', 'pending', 'att_x'], ['pay_held', 'authorized', null], ['pay_capturing', 'authorized', 'att_y'],
    ['pay_paid', 'succeeded', null], ['pay_refunded', 'partially_refunded', null], ['pay_expired', 'expired', null],
  ];
  for (const [id, status, attempt] of rows) {
    await pool.query(`INSERT INTO payments (id, merchant_id, livemode, status, amount, currency, fee, net, source, created_at, expires_at, updated_at, version, request_id, pending_attempt)
      VALUES ($1, 'mer_a', false, $2, 100, 'AZN', 0, 100, 'api', now(), '2026-11-28T00:00:00Z', now(), 1, 'req', $3)`, [id, status, attempt]);
  }
  const applied = await migrate(pool, listMigrations().filter((m) => m.version <= 27));
  t.ok(applied.includes('027_payment_due.sql'));
  const due = await pool.query<{ id: string; due: string | null }>(`SELECT id, to_char(due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') AS due FROM payments ORDER BY id`);
  t.same(Object.fromEntries(due.rows.map((r) => [r.id, r.due])), {
    pay_capturing: '2026-11-28T00:00:00', pay_expired: null, pay_held: '2026-11-28T00:00:00', pay_in_flight: null, pay_paid: null,
    pay_pending: '2026-11-28T00:00:00', pay_refunded: null,
  }, 'due when authorized, or pending with no attempt in flight; else NULL');
  // Postgres counts an index's key, expression and predicate columns alike for HOT: none may be status.
  const naming = await pool.query<{ indexname: string }>(
    `SELECT i.indexrelid::regclass::text AS indexname FROM pg_index i
      WHERE i.indrelid = 'payments'::regclass
        AND (pg_get_expr(i.indpred, i.indrelid) ~ '\\mstatus\\M' OR pg_get_expr(i.indexprs, i.indrelid) ~ '\\mstatus\\M'
             OR (SELECT attnum FROM pg_attribute WHERE attrelid = 'payments'::regclass AND attname = 'status') = ANY(i.indkey))`);
  t.same(naming.rows.map((r) => r.indexname), [], 'no index of payments names status');
  const idx = await pool.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename = 'payments' AND indexname IN ('payments_due_at', 'payments_test_clock') ORDER BY 1`);
  t.same(idx.rows.map((r) => r.indexname), ['payments_due_at', 'payments_test_clock']);
});

t.test('migration 028: each balance keeps the net of the payments settled before it', async (t) => {
  // Beside 027's rows (mer_a, AZN: pay_paid and pay_refunded settled, 100 each): another currency
  // and mode, another merchant, and an unpaid one that counts nothing.
  for (const [id, merchant, livemode, currency, status, net] of [
    ['pay_usd', 'mer_a', false, 'USD', 'refunded', 0], ['pay_live', 'mer_a', true, 'AZN', 'succeeded', 70],
    ['pay_b', 'mer_b', false, 'AZN', 'succeeded', 55], ['pay_b2', 'mer_b', false, 'AZN', 'partially_refunded', 30], ['pay_b_failed', 'mer_b', false, 'AZN', 'failed', 90],
  ] as const) {
    await pool.query(`INSERT INTO payments (id, merchant_id, livemode, status, amount, currency, fee, net, source, created_at, expires_at, updated_at, version, request_id, due_at)
      VALUES ($1, $2, $3, $4, 100, $5, 0, $6, 'api', now(), now(), now(), 1, 'req', NULL)`, [id, merchant, livemode, status, currency, net]);
  }
  const applied = await migrate(pool);
  t.ok(applied.includes('028_balance_settled.sql'));
  const kept = await pool.query('SELECT merchant_id, livemode, currency, stripe, net::int FROM balance_settled ORDER BY 1, 2, 3');
  t.same(kept.rows, [
    { merchant_id: 'mer_a', livemode: false, currency: 'AZN', stripe: 0, net: 200 },
    { merchant_id: 'mer_a', livemode: false, currency: 'USD', stripe: 0, net: 0 },
    { merchant_id: 'mer_a', livemode: true, currency: 'AZN', stripe: 0, net: 70 },
    { merchant_id: 'mer_b', livemode: false, currency: 'AZN', stripe: 0, net: 85 },
  ], 'one row per balance with a settled payment, its net summed');
  t.same(await balanceDrift(pool), [], 'the audit finds the kept figures equal to the payments');
  await pool.query("UPDATE payments SET net = 40 WHERE id = 'pay_b'");
  t.same(await balanceDrift(pool), [{ merchantId: 'mer_b', livemode: false, currency: 'AZN', kept: 85, summed: 70 }], 'and names a balance that drifted');
  await pool.query("UPDATE payments SET net = 55 WHERE id = 'pay_b'");
});

t.test('the expiry sweeps and the expiry lag metric reach their payments through payments_due_at', async (t) => {
  // Migration 027 fills due_at in (HOT updates) and then builds the index, so Postgres marks it
  // indcheckxmin: no transaction may use it while one older than the index runs anywhere in the
  // cluster (the other test files' transactions, here). Wait for that, as a deployment's sweeps do
  // after the migration; then the plans must use it.
  await until('payments_due_at usable by new transactions', async () => (await pool.query(
    `SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity a, pg_index i
       WHERE i.indexrelid = 'payments_due_at'::regclass AND a.backend_xid IS NOT NULL AND age(a.backend_xid) >= age(i.xmin)) AS usable`)).rows[0].usable, 120_000, 100);
  const c = await pool.connect();
  try {
    await c.query('SET enable_seqscan = off'); // a tiny table: make the planner say whether an index can serve
    for (const [what, sql, values] of [['claim of due payments', CLAIM_DUE_SQL, [200, 30]], ['claim of lapsed authorizations', CLAIM_LAPSED_SQL, [100, 30]],
      ['metrics', DATABASE_FIGURES_SQL, []]] as const) {
      const plan = (await c.query(`EXPLAIN ${sql}`, [...values])).rows.map((r) => r['QUERY PLAN']).join('\n');
      t.match(plan, /payments_due_at/, `${what}: by the due_at index`);
      t.notMatch(plan, /Seq Scan on payments/, `${what}: never a scan of every payment`);
    }
  } finally {
    c.release();
  }
});

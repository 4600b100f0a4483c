// Migrations on an existing database: 011 on merchants (each gets one default channel per mode,
// and a key naming no channel is revoked instead of being widened to every channel); 026's room on
// the pages of the tables updated in place.
import t from 'tap';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { startTestServer } from '../helpers/server.js';
import { suffix, testPool } from '../helpers/env.js';

const s = await startTestServer(t);
const name = `mig_${suffix()}`;
await s.db.query(`CREATE DATABASE ${name}`);
const u = new URL(s.srv.databaseUrl);
u.pathname = `/${name}`;
const pool = testPool(u.toString(), 2);
t.teardown(async () => { await pool.end(); await s.db.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {}); });

t.test('existing merchants get default channels; keys naming no channel are revoked', async (t) => {
  await migrate(pool, listMigrations().filter((m) => m.version <= 10));
  await pool.query(`INSERT INTO merchants (id, name, default_currency, currencies) VALUES ('mer_a', 'A', 'AZN', '{AZN}'), ('mer_b', 'B', 'AZN', '{AZN}')`);
  await pool.query(`INSERT INTO api_keys (id, merchant_id, kind, mode, key_hash, key_hint, channel_id) VALUES
    ('key_1', 'mer_a', 'secret', 'test', 'h1', 'x', 'bogus'), ('key_2', 'mer_a', 'secret', 'test', 'h2', 'x', NULL)`);
  const applied = await migrate(pool);
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

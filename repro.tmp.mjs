import pg from 'pg';
import { listMigrations, migrate } from './dist/src/store/migrate.js';
import { CLAIM_DUE_SQL } from './dist/src/store/payments-repo.js';
const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/repro1', max: 2 });
await migrate(pool, listMigrations().filter((m) => m.version <= 26));
await pool.query(`INSERT INTO merchants (id, name, default_currency, currencies) VALUES ('mer_a', 'A', 'AZN', '{AZN}')`);
for (const [id, status, attempt] of [['pay_pending', 'pending', null], ['pay_held', 'authorized', null]]) {
  await pool.query(`INSERT INTO payments (id, merchant_id, livemode, status, amount, currency, fee, net, source, created_at, expires_at, updated_at, version, request_id, pending_attempt)
      VALUES ($1, 'mer_a', false, $2, 100, 'AZN', 0, 100, 'api', now(), $4, now(), 1, 'req', $3)`, [id, status, attempt, process.argv[2]]);
}
await migrate(pool);
const c = await pool.connect();
await c.query('SET enable_seqscan = off');
const plan = (await c.query(`EXPLAIN ${CLAIM_DUE_SQL}`, [200, 30])).rows.map((r) => r['QUERY PLAN']).join('\n');
console.log(plan.includes('payments_due_at') ? 'INDEX' : 'SEQ');
c.release(); await pool.end();

// BENCH_KEEP_DATABASES=1 keeps the bench run's databases for a look afterwards (bench/webhook-stages.sql);
// without it they are dropped at the end of the run, as before.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import t from 'tap';
import { resolvePostgres } from '../../bench/environment.js';
import { PG_URL } from '../helpers/env.js';

const exists = async (name: string): Promise<boolean> => {
  const c = new pg.Client({ connectionString: PG_URL! });
  await c.connect();
  try { return ((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0) === 1; } finally { await c.end(); }
};

t.test('a run\'s database is dropped, or kept with BENCH_KEEP_DATABASES=1', { skip: PG_URL ? false : 'needs DATABASE_URL (a Postgres that outlives the run)' }, async (t) => {
  const before = process.env.BENCH_KEEP_DATABASES;
  t.teardown(() => { if (before === undefined) delete process.env.BENCH_KEEP_DATABASES; else process.env.BENCH_KEEP_DATABASES = before; });

  delete process.env.BENCH_KEEP_DATABASES;
  const dropping = await resolvePostgres();
  const a = `bench_keep_${randomBytes(4).toString('hex')}`;
  await dropping.createDatabase(a);
  t.ok(await exists(a), 'created');
  await dropping.dropDatabase(a);
  t.notOk(await exists(a), 'dropped by default');
  await dropping.close();

  process.env.BENCH_KEEP_DATABASES = '1';
  const keeping = await resolvePostgres();
  const b = `bench_keep_${randomBytes(4).toString('hex')}`;
  await keeping.createDatabase(b);
  await keeping.dropDatabase(b);
  t.ok(await exists(b), 'kept with BENCH_KEEP_DATABASES=1');
  await keeping.dropDatabase(`bench_keep_never_made`);
  delete process.env.BENCH_KEEP_DATABASES;
  const cleanup = await resolvePostgres();
  await cleanup.dropDatabase(b);
  t.notOk(await exists(b), 'dropped by hand afterwards');
  await keeping.close();
  await cleanup.close();
});

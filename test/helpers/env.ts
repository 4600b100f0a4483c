// What the machine offers the tests: a real Postgres and Redis when DATABASE_URL / REDIS_URL are
// set (CI sets them), else the embedded defaults. Tests that truly need a server skip with a message.
import pg from 'pg';
import { createHash, randomBytes } from 'node:crypto';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { withDatabase } from '../../src/store/db.js';

export const PG_URL = process.env.DATABASE_URL || null;
export const REDIS_URL = process.env.REDIS_URL || null;

export const needRedis = REDIS_URL ? false : 'needs a real Redis: set REDIS_URL (CI does)';

export const suffix = (): string => randomBytes(5).toString('hex');

/**
 * Creates a fresh database on the PG_URL server; returns its URL and a drop function. By default it
 * is a copy of a template that already holds every migration (`CREATE DATABASE … TEMPLATE`), so a
 * server started on it finds nothing to apply. (Migrating from nothing is still exercised: by the
 * template itself, and on the embedded defaults, where each server starts on a new cluster.)
 */
export async function freshDatabase(prefix = 't'): Promise<{ url: string; drop(): Promise<void> }> {
  if (!PG_URL) throw new Error('freshDatabase needs DATABASE_URL');
  const name = `${prefix}_${suffix()}`;
  const from = await migratedTemplate();
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${from}`);
  } finally {
    await admin.end();
  }
  return { url: databaseUrl(name), drop: () => dropDatabase(name) };
}

const databaseUrl = (name: string): string => withDatabase(PG_URL!, name);

async function dropDatabase(name: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL! });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  await c.end();
}

let template: Promise<string> | null = null;

/**
 * The name of a database holding every migration of this tree, made once per set of migrations
 * (named by their hash) and shared by every test file and run: migrating each test database
 * costs more than copying one. Files racing to make it are serialised by an advisory lock; it
 * gets its final name only once complete, and takes no connections, so copies never wait on it.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const migrations = listMigrations();
    const hash = createHash('sha256');
    for (const m of migrations) hash.update(`${m.name}\0${m.sql}\0`);
    const name = `pe_template_${hash.digest('hex').slice(0, 16)}`;
    const admin = new pg.Client({ connectionString: PG_URL! });
    await admin.connect();
    try {
      await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
      if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) return name;
      const building = `${name}_${suffix()}`;
      await admin.query(`CREATE DATABASE ${building}`);
      try {
        const pool = new pg.Pool({ connectionString: databaseUrl(building), max: 1 });
        try { await migrate(pool, migrations); } finally { await pool.end(); }
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      } catch (err) {
        await dropDatabase(building);
        throw err;
      }
      await admin.query(`ALTER DATABASE ${name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
      return name;
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]).catch(() => {});
      await admin.end();
    }
  })();
  return template;
}

const TEMPLATE_LOCK = 727_2001;

/**
 * A test's own pool on a test database. Teardowns drop databases WITH (FORCE): a client of an ended
 * pool (or one still connecting when it ended) may then be told the server terminated it (57P01).
 * That is the drop, not a failure; any other idle-client error still fails the test.
 */
export function testPool(connectionString: string, max = 2, options?: string): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, ...(options ? { options } : {}) });
  pool.on('error', (err) => { if ((err as { code?: string }).code !== '57P01') throw err; });
  return pool;
}

/**
 * Deadlines for a busy machine, for tests that are not about them and start their server while the
 * machine is at its busiest (the runner starts four files at once, the browser tests first): their
 * first request must not fail because a new server and a new database are still warming up. That
 * holds for Postgres too: with Chromium and three other servers on two cores, a statement has been
 * seen to wait past the default 6 s query deadline, and a create then answers 503 outcome_unknown.
 * The statement deadline stays below the query deadline and both below the actor's, as in the
 * defaults. The tests of the deadlines and of stalls set their own.
 */
export const BUSY_MACHINE_DEADLINES = {
  PG_STATEMENT_TIMEOUT_MS: '20000',
  PG_LOCK_TIMEOUT_MS: '15000',
  PG_QUERY_TIMEOUT_MS: '25000',
  ACTOR_DEADLINE_MS: '30000',
  REQUEST_DEADLINE_MS: '40000',
} as const;

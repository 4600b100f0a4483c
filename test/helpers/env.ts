// What the machine offers the tests: a real Postgres and Redis when DATABASE_URL / REDIS_URL are
// set (CI sets them), else the embedded defaults. Tests that truly need a server skip with a message.
import pg from 'pg';
import { randomBytes } from 'node:crypto';

export const PG_URL = process.env.DATABASE_URL || null;
export const REDIS_URL = process.env.REDIS_URL || null;

export const needRedis = REDIS_URL ? false : 'needs a real Redis: set REDIS_URL (CI does)';

export const suffix = (): string => randomBytes(5).toString('hex');

/** Creates a fresh database on the PG_URL server; returns its URL and a drop function. */
export async function freshDatabase(prefix = 't'): Promise<{ url: string; drop(): Promise<void> }> {
  if (!PG_URL) throw new Error('freshDatabase needs DATABASE_URL');
  const name = `${prefix}_${suffix()}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(PG_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await c.end();
    },
  };
}

/**
 * A test's own pool on a test database. Teardowns drop databases WITH (FORCE): a client of an ended
 * pool (or one still connecting when it ended) may then be told the server terminated it (57P01).
 * That is the drop, not a failure; any other idle-client error still fails the test.
 */
export function testPool(connectionString: string, max = 2): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  pool.on('error', (err) => { if ((err as { code?: string }).code !== '57P01') throw err; });
  return pool;
}

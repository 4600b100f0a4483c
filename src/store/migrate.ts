// Ordered, idempotent SQL migrations, recorded in schema_migrations and serialised across processes
// by an advisory lock, so several instances may start at once.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type pg from 'pg';

// Compiled code lives in dist/src/store; the .sql files stay in src/store/migrations.
const here = path.dirname(fileURLToPath(import.meta.url));
export const MIGRATIONS_DIR = [path.join(here, 'migrations'), path.resolve(here, '../../../src/store/migrations')]
  .find((dir) => { try { return readdirSync(dir).some((f) => f.endsWith('.sql')); } catch { return false; } })!;

const LOCK_KEY = 727_1001;

export interface Migration { version: number; name: string; sql: string }

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir).filter((f) => /^\d+_.*\.sql$/.test(f)).sort().map((f) => ({
    version: Number(f.split('_')[0]), name: f, sql: readFileSync(path.join(dir, f), 'utf8'),
  }));
}

export async function migrate(pool: pg.Pool, migrations = listMigrations()): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await client.query('SELECT version FROM schema_migrations')).rows.map((r) => r.version as number));
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await client.query('COMMIT');
        applied.push(m.name);
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`);
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    client.release();
  }
  return applied;
}

// Several real server processes (child processes) on one fresh database, for crash and multi-process
// tests: start as many as needed with extra settings, query the database directly, and everything
// is killed and dropped in teardown.
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild, type Child } from './child.js';
import { REDIS_URL, freshDatabase, suffix } from './env.js';

export interface Cluster {
  db: pg.Pool;
  env: Record<string, string>;
  start(extra?: Record<string, string>): Promise<Child>;
}

/** Needs DATABASE_URL (callers skip without it). */
export async function startCluster(t: { teardown(fn: () => unknown): void }, prefix: string, env: Record<string, string> = {}): Promise<Cluster> {
  const database = await freshDatabase(prefix);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `pe-${prefix}-`));
  const db = new pg.Pool({ connectionString: database.url, max: 2 });
  db.on('error', () => {});
  const children: Child[] = [];
  t.teardown(async () => {
    for (const c of children) c.proc.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await db.end();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const base: Record<string, string> = {
    ADMIN_TOKEN: 'adm', DATA_DIR: dataDir, DEMO_MERCHANT: '0', WORKERS: '2', KV_PREFIX: `${prefix}${suffix()}:`, DATABASE_URL: database.url,
    ...(REDIS_URL ? { REDIS_URL } : {}), ...env,
  };
  return {
    db, env: base,
    async start(extra = {}) {
      const c = await startChild({ ...base, ...extra });
      children.push(c);
      return c;
    },
  };
}

// Postgres connection pools. int8 (bigint) money columns are parsed as JS numbers: amounts are
// bounded far below 2^53 by the domain, so no precision is lost.
import pg from 'pg';

pg.types.setTypeParser(20, (v) => Number(v));

export type Pool = pg.Pool;

/**
 * `relaxedCommit`: the pool's commits do not wait for the WAL flush (synchronous_commit off). Only
 * for bookkeeping whose loss in a Postgres crash is harmless, such as webhook claims and attempt
 * records (a lost record means one more delivery with the same event id, which receivers expect).
 */
export function createPool(connectionString: string, max: number, relaxedCommit = false): pg.Pool {
  const pool = new pg.Pool({
    connectionString, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000,
    ...(relaxedCommit ? { options: '-c synchronous_commit=off' } : {}),
  });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return pool;
}

/**
 * Whether a failed statement surely rolled back: Postgres itself refused it for its data (class 22),
 * an integrity rule (23), its text (42) or a limit (54). Anything else (a broken connection, a
 * timeout on either side) may have committed, so its outcome is unknown.
 */
export function rolledBack(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && /^(22|23|42|54)[0-9A-Z]{3}$/.test(code);
}

// Postgres connection pools. int8 (bigint) money columns are parsed as JS numbers: amounts are
// bounded far below 2^53 by the domain, so no precision is lost.
import pg from 'pg';

pg.types.setTypeParser(20, (v) => Number(v));

export type Pool = pg.Pool;

export function createPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000 });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return pool;
}

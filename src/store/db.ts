// Postgres connection pools. int8 (bigint) money columns are parsed as JS numbers: amounts are
// bounded far below 2^53 by the domain, so no precision is lost.
//
// Every pool is bounded in time (connect, statement, client-side read time-out, TCP keep-alive)
// and named (application_name), so that pg_stat_activity shows which process and role holds
// each connection.
import pg from 'pg';

pg.types.setTypeParser(20, (v) => Number(v));

export type Pool = pg.Pool;

/** The deadlines every connection gets (milliseconds; 0 turns one off). */
export interface DbTimeouts {
  /** Server side: Postgres cancels a statement running longer (statement_timeout). */
  statementMs: number;
  /**
   * Server side: Postgres cancels a statement that has waited this long for one lock (lock_timeout,
   * SQLSTATE 55P03). It fails before anything commits, so its outcome is known (rolledBack), and a
   * grouped writer can answer the other rows of its statement (group-writer.ts, `lockedRows`).
   */
  lockMs: number;
  /** Client side: a query without an answer for this long fails and its connection is dropped. */
  queryMs: number;
  /** Opening a connection (TCP + start-up + authentication). */
  connectMs: number;
  /** TCP keep-alive: first probe after this much idle time. */
  keepAliveMs: number;
}

export const DEFAULT_TIMEOUTS: DbTimeouts = { statementMs: 5_000, lockMs: 2_000, queryMs: 6_000, connectMs: 3_000, keepAliveMs: 10_000 };

export interface PoolOptions {
  max: number;
  /** Shown in pg_stat_activity.application_name, e.g. `pe:1234:w0`. */
  name: string;
  timeouts?: DbTimeouts;
  /**
   * The pool's commits do not wait for the WAL flush (synchronous_commit off). Only for records
   * whose loss in a Postgres crash is harmless: webhook claims and attempt records (a lost record
   * means one more delivery with the same event id, which receivers expect), and the sandbox bank's
   * ledger (every engine commit built on a bank answer flushes the WAL that holds it).
   */
  relaxedCommit?: boolean;
  /** Told of an idle connection's error (the server restarted or closed it): the pool drops that connection. */
  log: IdleErrorLog;
}

/** Where a pool reports the errors no query sees (pino's `warn` and `debug` fit). */
export interface IdleErrorLog {
  warn(obj: { err: Error; pool: string }, msg: string): void;
  debug(obj: { err: Error; pool: string }, msg: string): void;
}

/** Connection settings shared by pools and single clients (the LISTEN connection). */
export function clientConfig(connectionString: string, name: string, t: DbTimeouts = DEFAULT_TIMEOUTS, relaxedCommit = false): pg.ClientConfig {
  const options = [`-c statement_timeout=${t.statementMs}`, `-c lock_timeout=${t.lockMs}`, ...(relaxedCommit ? ['-c synchronous_commit=off'] : [])].join(' ');
  return {
    connectionString, application_name: name, options,
    connectionTimeoutMillis: t.connectMs || undefined,
    query_timeout: t.queryMs || undefined,
    keepAlive: t.keepAliveMs > 0, keepAliveInitialDelayMillis: t.keepAliveMs,
  };
}

export function createPool(connectionString: string, o: PoolOptions): pg.Pool {
  const t = o.timeouts ?? DEFAULT_TIMEOUTS;
  const pool = new pg.Pool({ ...clientConfig(connectionString, o.name, t, o.relaxedCommit), max: o.max, idleTimeoutMillis: 30_000 });
  // An idle client's error (server restart, a connection killed by an operator) must not crash the
  // process: the pool drops that connection and the next query opens another. It is logged, since no
  // query sees it. A client whose query timed out is released with the error, so the pool drops it too.
  // Once the pool is ending, its clients are closing: `end()` resolves before their sockets are gone,
  // and a Postgres that stops or drops the database meanwhile tells them they were terminated (57P01).
  // That is the shutdown, not a fault, so it is a debug line.
  pool.on('error', (err) => {
    if (pool.ending) o.log.debug({ err, pool: o.name }, 'a database connection closing with its pool was terminated');
    else o.log.warn({ err, pool: o.name }, 'an idle database connection failed; the pool replaces it');
  });
  return pool;
}

/**
 * Whether a failed statement surely rolled back: Postgres itself refused it for its data (class 22),
 * an integrity rule (23), its text (42) or a limit (54), or it gave up waiting for a lock (55P03,
 * lock_timeout: nothing of it had committed). Anything else (a broken connection, a statement
 * timeout on either side) may have committed, so its outcome is unknown.
 */
export function rolledBack(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && (/^(22|23|42|54)[0-9A-Z]{3}$/.test(code) || code === LOCK_NOT_AVAILABLE);
}

/** SQLSTATE of a statement that waited longer than lock_timeout for a lock (or found one taken under NOWAIT). */
export const LOCK_NOT_AVAILABLE = '55P03';

/** Whether the statement failed because it waited too long for a lock (lock_timeout): rolled back. */
export const lockTimedOut = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === LOCK_NOT_AVAILABLE;

/**
 * The same connection string naming another database. Written without WHATWG URL, which refuses
 * forms libpq accepts: an empty host with the socket's folder in the query
 * (`postgres://user@/db?host=/var/run/postgresql`).
 */
export function withDatabase(connectionString: string, database: string): string {
  const m = /^(postgres(?:ql)?:\/\/[^/?#]*)(?:\/[^?#]*)?(.*)$/.exec(connectionString);
  if (!m) throw new Error('not a postgres:// connection string');
  return `${m[1]}/${encodeURIComponent(database)}${m[2]}`;
}

/** The application_name prefix of every connection this process opens. */
export const processAppName = (pid = process.pid): string => `pe:${pid}`;

/** Errors that mean "the database cannot be reached or answer in time right now" (retryable). */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (typeof e?.code === 'string' && (/^(08|57P0|53)/.test(e.code) || e.code === '57014' || e.code === LOCK_NOT_AVAILABLE ||
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE'].includes(e.code))) return true;
  return /timeout exceeded when trying to connect|Query read timeout|Connection terminated|connect ECONNREFUSED|not currently accepting connections|database system is (starting up|shutting down)/i
    .test(e?.message ?? '');
}

/** Whether a failed statement never reached Postgres (no connection could be made): nothing can have committed. */
export function neverSent(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (typeof e?.code === 'string' && (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', '57P03', '53300'].includes(e.code))) return true;
  return /timeout exceeded when trying to connect|connect ECONNREFUSED/i.test(e?.message ?? '');
}

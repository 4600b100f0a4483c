// The connection budget of one process: PG_POOL_MAX connections in all, split between the front
// end (main thread: auth, reads, schedulers), each worker's actor pool, each worker's sandbox bank
// connection, each worker's webhook dispatcher pool and the one LISTEN connection. N processes then
// hold at most N x PG_POOL_MAX.

export interface PoolBudget {
  /** Main-thread pool. */
  front: number;
  /** Actor pool of each worker thread. */
  worker: number;
  /**
   * The sandbox bank's connection of each worker thread: the bank stands for a remote acquirer, so
   * its ledger's statements do not take the actors' connections (and its Postgres time can be told
   * apart). 0 when the actors' share is a single connection: the bank then shares it.
   */
  bank: number;
  /** Webhook dispatcher pool of each worker thread (0 when dispatch is off). */
  hooks: number;
  /** The LISTEN connection that wakes the dispatchers (0 when dispatch is off). */
  listen: number;
  total: number;
}

/** The smallest PG_POOL_MAX that works for `workers` worker threads. */
export const minPoolMax = (workers: number, dispatch: boolean): number => 2 + workers * (dispatch ? 2 : 1) + (dispatch ? 1 : 0);

/**
 * listen = 1; hooks = 15 % of the rest shared by the workers (1 to 4 each); of what is
 * left the front end takes half (at least 2) and the workers share the other half (at least 1 each),
 * each worker's share giving one connection to its sandbox bank when it has two or more.
 */
export function splitPoolBudget(max: number, workers: number, dispatch: boolean): PoolBudget {
  const need = minPoolMax(workers, dispatch);
  if (max < need) throw new Error(`PG_POOL_MAX=${max} is too small for WORKERS=${workers}: it needs at least ${need}`);
  const listen = dispatch ? 1 : 0;
  const rest = max - listen;
  const hooksCap = Math.min(4, Math.floor((rest - 2 - workers) / workers));
  const hooks = dispatch ? Math.max(1, Math.min(hooksCap, Math.floor((rest * 0.15) / workers))) : 0;
  const left = rest - workers * hooks;
  const front = Math.max(2, Math.min(Math.floor(left / 2), left - workers));
  const share = Math.max(1, Math.floor((left - front) / workers));
  const bank = share >= 2 ? 1 : 0;
  const worker = share - bank;
  return { front, worker, bank, hooks, listen, total: front + workers * (worker + bank + hooks) + listen };
}

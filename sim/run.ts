// One simulation run: build the world, set up a merchant, run the workload and the faults from one
// seed for a while, heal, wait for recovery, retry every key once, then check. The world is torn
// down whatever happens.
import { randomBytes } from 'node:crypto';
import { checkAnswers, checkLedger, type Violation } from './checker.js';
import { checkReconciliation } from './reconcile.js';
import { send, sleep, type Auth } from './client.js';
import { Faults, type FaultKind } from './faults.js';
import { History, type Op } from './history.js';
import { Rng } from './rng.js';
import { openAttempts, openWork, pendingRows, readState } from './state.js';
import { CARDS, runWorkload } from './workload.js';
import { ADMIN_TOKEN, until, World } from './world.js';

export interface RunOptions { seed: number; seconds: number; clients: number; faults: boolean; pgUrl: string; log: (line: string) => void }

export interface RunResult {
  seed: number;
  clients: number;
  seconds: number;
  history: History;
  violations: Violation[];
  faults: Map<FaultKind, number>;
  recoveredMs: number | null;
  /** When recovery was not done within SLOW_RECOVERY_MS: what was still open then (state.ts openWork). */
  heldBy?: string;
  ms: number;
}

/** A recovery longer than this is described: what was still open at this point. */
const SLOW_RECOVERY_MS = 5_000;

/** Server settings that make faults bite quickly: small pools, fast recovery of open attempts. */
const SERVER_ENV = {
  PG_POOL_MAX: process.env.SIM_PG_POOL_MAX ?? '5', ATTEMPT_RECOVERY_AFTER_MS: '2000', ATTEMPT_RECOVERY_POLL_MS: '500', RATE_LIMIT_PER_MINUTE: '1000000',
  PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000', PUBLIC_SESSION_RATE_LIMIT_PER_MINUTE: '1000000', EXPIRY_POLL_MS: '1000',
  // The servers reconcile while the faults run (5 s windows, 10 s after they end, under locks and stalls).
  RECONCILIATION_INTERVAL_MS: '500', RECONCILIATION_WINDOW_MS: '5000', RECONCILIATION_DELAY_MS: '10000',
};

async function call(world: World, method: string, path: string, token: string | null, body?: unknown) {
  const r = await fetch(`${world.servers[0].url}${path}`, {
    method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(15_000),
  });
  const json = await r.json().catch(() => null) as Record<string, any> | null;
  if (r.status >= 300) throw new Error(`setup ${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json!;
}

/** One merchant for everything (one balance), allowed raw card data, with a merchant and a secret key and a funded balance. */
async function setup(world: World): Promise<Auth> {
  const m = await call(world, 'POST', '/internal/merchants', ADMIN_TOKEN, { name: 'Simulated merchant', rate_limit_per_minute: 1_000_000, currencies: ['RUB'] });
  await call(world, 'PATCH', `/internal/merchants/${m.id}`, ADMIN_TOKEN, { card_data_allowed: true });
  const merchant = (await call(world, 'POST', `/internal/merchants/${m.id}/api-keys`, ADMIN_TOKEN, { kind: 'merchant', mode: 'test' })).key as string;
  const secret = (await call(world, 'POST', `/internal/merchants/${m.id}/api-keys`, ADMIN_TOKEN, { kind: 'secret', mode: 'test' })).key as string;
  for (let i = 0; i < 3; i++) {
    const p = await call(world, 'POST', '/api/v2/payments', merchant, { amount: 20_000, currency: 'RUB' });
    const paid = await call(world, 'POST', `/checkout/${p.id}/pay`, null, { number: CARDS.success, exp_month: '12', exp_year: '34', cvc: '731' });
    if (paid.status !== 'succeeded') throw new Error(`setup payment: ${JSON.stringify(paid)}`);
  }
  return { merchant, secret };
}

/** Waits until no attempt is open and nothing is pending; the time it took, or null past the deadline. */
async function settle(world: World, ms: number): Promise<{ ms: number | null; heldBy?: string }> {
  const t = Date.now();
  const done = async () => (await openAttempts(world.db)) === 0 && (await pendingRows(world.db)) === 0;
  if (await until(done, Math.min(ms, SLOW_RECOVERY_MS), 250)) return { ms: Date.now() - t };
  const heldBy = await openWork(world.db);
  const ok = await until(done, Math.max(0, ms - (Date.now() - t)), 250);
  return { ms: ok ? Date.now() - t : null, heldBy };
}

/** Keys that got a 2xx, or never a definite answer, are sent once more (unknowns up to three times), four at a time. */
async function finalPass(world: World, history: History, auth: Auth, seed: number): Promise<void> {
  const rng = Rng.fork(seed, 'final');
  const due = history.ops.filter((op: Op) => op.key && (op.exchanges.some((x) => x.verdict === 'ok') || op.exchanges.every((x) => x.verdict === 'retry')));
  // A few at a time, as clients coming back would: a burst of every key at once would exhaust the
  // small pools by itself and turn the convergence check into one more fault.
  const procs = due.map(() => rng.int(0, 1));
  let next = 0;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (next < due.length) {
      const i = next++;
      for (let tries = 0; tries < 3; tries++) {
        const x = await send(world, history, auth, due[i], (procs[i] + tries) % 2, 'final');
        if (x.verdict !== 'retry') break;
        await sleep(500 * (tries + 1));
      }
    }
  }));
}

export async function runOnce(o: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const world = new World(o.pgUrl, SERVER_ENV);
  const history = new History();
  try {
    await world.start(`sim_${randomBytes(5).toString('hex')}`);
    const auth = await setup(world);
    const end = Date.now() + o.seconds * 1000;
    const stop = () => Date.now() >= end;
    const faults = new Faults(o.seed, world, history);
    await Promise.all([runWorkload(o.seed, world, history, auth, { clients: o.clients, stop }), o.faults ? faults.loop(stop) : Promise.resolve()]);
    history.fault('faults stop; healing');
    await faults.heal();
    const { ms: recoveredMs, heldBy } = await settle(world, 60_000);
    if (heldBy) history.fault(`recovery still open after ${SLOW_RECOVERY_MS} ms: ${heldBy}`);
    history.fault(recoveredMs === null ? 'recovery deadline passed' : `recovered in ${recoveredMs} ms`);
    await finalPass(world, history, auth, o.seed);
    await settle(world, 30_000);
    const state = await readState(world.db);
    const recon = await checkReconciliation(world.db);
    history.fault(`reconciliation: ${recon.runs} windows reconciled by the servers; the whole run compared once`);
    const violations = [...checkLedger(state), ...checkAnswers(state, history.ops, history.t0), ...recon.violations];
    return { seed: o.seed, clients: o.clients, seconds: o.seconds, history, violations, faults: faults.counts, recoveredMs, ...(heldBy ? { heldBy } : {}), ms: Date.now() - started };
  } finally {
    await world.close();
  }
}

// Wakes the webhook dispatchers when any process queues deliveries. A trigger on
// webhook_deliveries NOTIFYs `webhook_due` at the commit of every statement that inserted pending
// rows (migration 007); one LISTEN connection per process (main thread) hears it and fans the
// wake-up out to the worker threads over a BroadcastChannel. The dispatchers keep a slow poll
// (WEBHOOK_POLL_MS) as a safety net for a notification lost while the connection was down.
import { BroadcastChannel } from 'node:worker_threads';
import pg from 'pg';
import { clientConfig, type DbTimeouts } from '../src/store/db.js';
import { withDeadline } from '../src/deadline.js';
import type { Logger } from '../src/log.js';

export const PG_CHANNEL = 'webhook_due';
const THREAD_CHANNEL = 'payments-engine:webhook-due';
const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;
/** Notifications closer together than this wake the workers once (each wake costs every worker a claim). */
const COALESCE_MS = 5;

/** Calls `fn` whenever this process's listener hears of new deliveries; returns the unsubscribe. */
export function onWebhookWake(fn: () => void): () => void {
  const ch = new BroadcastChannel(THREAD_CHANNEL);
  ch.onmessage = () => fn();
  (ch as unknown as { unref(): void }).unref();
  return () => ch.close();
}

export interface DueListener {
  /** Resolves once a LISTEN is in place (tests). */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

export interface ListenerOptions {
  connectionString: string;
  name: string;
  timeouts: DbTimeouts;
  /** How often the connection is checked with a query (a silent partition shows no error). */
  pingMs: number;
  log: Logger;
}

/** Holds one LISTEN connection, reconnecting with backoff (100 ms doubling to 5 s) when it drops. */
export function startDueListener(o: ListenerOptions): DueListener {
  const wake = new BroadcastChannel(THREAD_CHANNEL);
  (wake as unknown as { unref(): void }).unref();
  let client: pg.Client | null = null;
  let stopped = false;
  let backoff = MIN_BACKOFF_MS;
  let retry: NodeJS.Timeout | null = null;
  let readyResolve: () => void = () => {};
  let readyP = new Promise<void>((r) => { readyResolve = r; });
  let lastWake = 0;
  let trailing: NodeJS.Timeout | null = null;
  const wakeWorkers = (): void => {
    // A notification can still arrive while stop() ends the connection, after the channel is
    // closed: posting then throws (InvalidStateError), uncaught in the client's event handler.
    if (stopped) return;
    const since = Date.now() - lastWake;
    if (since >= COALESCE_MS) { lastWake = Date.now(); wake.postMessage(1); return; }
    trailing ??= setTimeout(() => { trailing = null; if (stopped) return; lastWake = Date.now(); wake.postMessage(1); }, COALESCE_MS - since);
  };

  const drop = (c: pg.Client, err: Error | null): void => {
    if (client !== c) return;
    client = null;
    readyP = new Promise<void>((r) => { readyResolve = r; });
    if (err) o.log.warn({ err }, 'webhook LISTEN connection lost; reconnecting');
    // end() waits for the server's goodbye, which a partition never sends: do not wait for it.
    void c.end().catch(() => {});
    schedule();
  };

  const schedule = (): void => {
    if (stopped || retry) return;
    retry = setTimeout(() => { retry = null; void connect(); }, backoff);
    retry.unref();
    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
  };

  async function connect(): Promise<void> {
    if (stopped) return;
    const c = new pg.Client(clientConfig(o.connectionString, o.name, o.timeouts));
    c.on('error', (err) => drop(c, err));
    c.on('end', () => drop(c, null));
    c.on('notification', wakeWorkers);
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${PG_CHANNEL}`);
      if (client !== c) return;
      backoff = MIN_BACKOFF_MS;
      readyResolve();
      // Anything queued while there was no listener: look now.
      wakeWorkers();
    } catch (err) {
      drop(c, err as Error);
    }
  }

  const ping = setInterval(() => {
    const c = client;
    if (c && !stopped) c.query('SELECT 1').catch((err: Error) => drop(c, err));
  }, Math.max(1_000, o.pingMs));
  ping.unref();
  void connect();

  return {
    ready: () => readyP,
    async stop() {
      stopped = true;
      clearInterval(ping);
      if (retry) clearTimeout(retry);
      if (trailing) clearTimeout(trailing);
      const c = client;
      client = null;
      wake.close();
      if (c) await withDeadline(c.end(), 1_000);
    },
  };
}

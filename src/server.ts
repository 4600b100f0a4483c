// Composition root: starts the stores, the actor workers, the scheduler and the HTTP front end,
// and stops them in the order that loses no acknowledged write.
import { randomBytes } from 'node:crypto';
import type { Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { Metrics } from './metrics.js';
import { createPool } from './store/db.js';
import { freePort, startEmbedded, type Embedded } from './store/embedded.js';
import { migrate } from './store/migrate.js';
import { PaymentReads } from './store/payment-reads.js';
import type { KeyValue } from './store/kv.js';
import { MemoryKeyValue } from './store/kv-memory.js';
import { RedisKeyValue } from './store/kv-redis.js';
import { Dispatcher } from '../actors/dispatcher.js';
import { startScheduler } from '../actors/scheduler.js';
import { buildApp, isNativeUws, listen } from './http/app.js';
import { activeRequests, closeConnectionsAfterAnswer } from './http/context.js';
import { Authenticator } from './http/auth.js';
import { Idempotency } from './http/idempotency.js';
import type { Services } from './http/services.js';
import { allRoutes } from './http/routes/index.js';
import { ensureDemoMerchant, type DemoMerchant } from './demo.js';
import { WebhookDispatcher } from '../actors/webhook-dispatcher.js';

export interface RunningServer {
  url: string;
  port: number;
  adminToken: string;
  databaseUrl: string;
  demo: DemoMerchant | null;
  services: Services;
  close(): Promise<void>;
}

export async function startServer(config: Config, log: Logger = createLogger(config.logLevel)): Promise<RunningServer> {
  if (!isNativeUws()) log.error('uWebSockets.js native binary did not load: running on the slow fallback implementation');
  // PORT=0 (tests, benchmarks): pick the free port now, so that every part of the server (the
  // workers render checkout URLs in webhooks) knows the real public URL from the start.
  if (config.port === 0) {
    let port = 0;
    while (!port) port = await freePort();
    if (config.publicBaseUrl.endsWith(':0')) config.publicBaseUrl = config.publicBaseUrl.replace(/:0$/, `:${port}`);
    config.port = port;
  }
  let embedded: Embedded | null = null;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await startEmbedded(config.dataDir, log);
    databaseUrl = embedded.url;
  }
  const db = createPool(databaseUrl, config.dbPoolSize);
  const applied = await migrate(db);
  if (applied.length) log.info({ applied }, 'migrations applied');

  let kv: KeyValue;
  if (config.redisUrl) {
    const redis = new RedisKeyValue(config.redisUrl, config.kvPrefix);
    if (!(await redis.ready())) log.warn('redis unreachable at start; rate limits fail open and idempotency falls back to Postgres until it is back');
    kv = redis;
  } else {
    kv = new MemoryKeyValue();
  }

  const reads = new PaymentReads(db, { onError: (err, lookups) => log.error({ err, lookups }, 'grouped payment read failed') });
  const dispatcher = new Dispatcher({
    workers: config.workers, inflightLimit: config.mailboxLimit, log,
    init: { databaseUrl, poolSize: config.dbPoolSize, mailboxLimit: config.mailboxLimit, logLevel: config.logLevel, publicBaseUrl: config.publicBaseUrl, webhooks: config.webhooks },
  });
  const metrics = new Metrics();
  const adminToken = config.adminToken ?? `adm_${randomBytes(24).toString('base64url')}`;
  const services: Services = {
    config, adminToken, log, db, kv, dispatcher, metrics, reads,
    webhooks: new WebhookDispatcher({
      db, publicBaseUrl: config.publicBaseUrl, allowPrivate: config.webhooks.allowPrivate, timeoutMs: config.webhooks.timeoutMs,
      leaseMs: config.webhooks.leaseMs, pollMs: config.webhooks.pollMs, maxInflight: config.webhooks.concurrency, perEndpoint: config.webhooks.perEndpoint,
      onError: (err) => log.warn({ err: err.message }, 'webhook attempt failed to record'),
    }),
    auth: new Authenticator(db, config.authCacheMs),
    idempotency: new Idempotency(kv, () => { metrics.kvFailOpen++; }),
  };
  const app = buildApp(allRoutes, services);
  const listening = await listen(app, config.host, config.port);
  const scheduler = startScheduler(db, dispatcher, config.expiryPollMs, log);
  const demo = config.demoMerchant ? await ensureDemoMerchant(services) : null;
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${listening.port}`;
  log.info({ url, workers: config.workers, kv: kv.kind, embeddedPostgres: !!embedded }, 'listening');

  let closing: Promise<void> | null = null;
  async function close(): Promise<void> {
    closing ??= (async () => {
      listening.close();                     // no new connections
      closeConnectionsAfterAnswer();         // kept-alive connections end with their next answer
      const deadline = Date.now() + 15_000;  // answer everything already received
      while (activeRequests() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await scheduler.stop();
      await dispatcher.close();              // mailboxes drain: every accepted command finishes
      await services.webhooks.stop();
      (app as unknown as { close?: () => void }).close?.();
      await db.end().catch(() => {});
      await kv.close();
      if (embedded) await embedded.stop().catch(() => {});
      log.info('stopped');
    })();
    return closing;
  }
  return { url, port: listening.port, adminToken, databaseUrl, demo, services, close };
}

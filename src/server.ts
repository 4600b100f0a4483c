// Composition root: starts the stores, the actor workers, the scheduler and the HTTP front end,
// and stops them in the order that loses no acknowledged write.
import { randomBytes } from 'node:crypto';
import { getHeapStatistics } from 'node:v8';
import type { Config } from './config.js';
import { accessLines, accessThrough, createLogger, type BatchedLines, type Logger } from './log.js';
import { Metrics } from './metrics/registry.js';
import { createPool, processAppName } from './store/db.js';
import { splitPoolBudget } from './store/pool-budget.js';
import { withDeadline } from './deadline.js';
import { holdFreePort, startEmbedded, type Embedded } from './store/embedded.js';
import { migrate } from './store/migrate.js';
import { PaymentReads } from './store/payment-reads.js';
import type { KeyValue } from './store/kv.js';
import { MemoryKeyValue } from './store/kv-memory.js';
import { RedisKeyValue } from './store/kv-redis.js';
import { Dispatcher } from '../actors/dispatcher.js';
import { startScheduler } from '../actors/scheduler.js';
import { startKeyRelease } from '../actors/key-release.js';
import { startRecovery } from '../actors/recovery.js';
import { startReconciler } from '../actors/reconciliation/reconciler.js';
import { allConnectors } from './connectors/index.js';
import { failpointsArmed } from './failpoints.js';
import { buildApp, isNativeUws, listen } from './http/app.js';
import { activeRequests, closeConnectionsAfterAnswer } from './http/context.js';
import { Authenticator } from './http/auth.js';
import { Idempotency } from './http/idempotency.js';
import type { Services } from './http/services.js';
import { allRoutes } from './http/routes/index.js';
import { ensureDemoMerchant, type DemoMerchant } from './demo.js';
import { readCredentials, writeCredentials } from './dev-credentials.js';
import { WebhookDispatcher } from '../actors/webhook-dispatcher.js';
import { startDueListener } from '../actors/webhook-wakeup.js';

export interface RunningServer {
  url: string;
  port: number;
  adminToken: string;
  databaseUrl: string;
  demo: DemoMerchant | null;
  services: Services;
  close(): Promise<void>;
}

/**
 * `accessOut`: where the access log goes in batches (main.ts: stdout); without it, access lines go
 * through `log` one by one (tests pass a capturing or silent logger).
 */
export async function startServer(config: Config, log: Logger = createLogger(config.logLevel), accessOut: BatchedLines | null = null): Promise<RunningServer> {
  if (!isNativeUws()) log.error('uWebSockets.js native binary did not load: running on the slow fallback implementation');
  // PORT=0 (tests, benchmarks): pick the free port now, so that every part of the server (the
  // workers render checkout URLs in webhooks) knows the real public URL from the start.
  // The port stays bound by us until the listener takes it (holdFreePort).
  const held = config.port === 0 ? await holdFreePort() : null;
  if (held) {
    if (config.publicBaseUrl.endsWith(':0')) config.publicBaseUrl = config.publicBaseUrl.replace(/:0$/, `:${held.port}`);
    config.port = held.port;
  }
  let embedded: Embedded | null = null;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await startEmbedded(config.dataDir, log);
    databaseUrl = embedded.url;
  }
  // One connection budget for the whole process (docs/operations.md, "Database connections").
  const budget = splitPoolBudget(config.pgPoolMax, config.workers, config.webhooks.dispatch);
  const appName = processAppName();
  // Migrations may run longer than a statement deadline: a one-connection pool with a 10 min
  // bound instead, closed before the others open.
  const migrations = createPool(databaseUrl, { max: 1, name: `${appName}:migrate`, log, timeouts: { ...config.db, statementMs: 0, lockMs: 0, queryMs: 600_000 } });
  try {
    const applied = await migrate(migrations);
    if (applied.length) log.info({ applied }, 'migrations applied');
  } finally {
    await migrations.end().catch((err: Error) => log.warn({ err }, 'closing the migration connection failed'));
  }
  const db = createPool(databaseUrl, { max: budget.front, name: `${appName}:front`, log, timeouts: config.db });
  log.info({ budget, pgPoolMax: config.pgPoolMax }, 'postgres connection budget');

  let kv: KeyValue;
  if (config.redisUrl) {
    const redis = new RedisKeyValue(config.redisUrl, config.kvPrefix, {
      onBreaker: (node, open) => (open
        ? log.warn({ node }, 'redis node failing: circuit open, its keys fail open without asking it until a probe succeeds')
        : log.info({ node }, 'redis node answers again: circuit closed')),
      onConnectionError: (err) => log.warn({ err }, 'redis connection failed; reconnecting (told once per outage)'),
    });
    if (!(await redis.ready())) log.warn('redis unreachable at start; rate limits fail open and idempotency falls back to Postgres until it is back');
    kv = redis;
  } else {
    kv = new MemoryKeyValue();
  }

  const reads = new PaymentReads(db, { onError: (err, lookups) => log.error({ err, lookups }, 'grouped payment read failed') });
  const dispatcher = new Dispatcher({
    workers: config.workers, inflightLimit: config.mailboxLimit, log,
    deadlineMs: config.actorDeadlineMs,
    resourceLimits: { maxYoungGenerationSizeMb: config.workerYoungGenerationMb, maxOldGenerationSizeMb: config.workerOldGenerationMb },
    ...(config.workerExecArgv ? { execArgv: config.workerExecArgv } : {}),
    init: {
      databaseUrl, poolSize: budget.worker, bankPoolSize: budget.bank, hooksPoolSize: budget.hooks, dbTimeouts: config.db, appName,
      mailboxLimit: config.mailboxLimit, mailboxPerIdLimit: config.mailboxPerIdLimit, logLevel: config.logLevel,
      publicBaseUrl: config.publicBaseUrl, connectorTimeoutMs: config.connectorTimeoutMs, webhooks: config.webhooks,
      authorizationWindowSeconds: config.authorizationWindowSeconds,
      redisUrl: config.redisUrl ?? null, kvPrefix: config.kvPrefix,
    },
  });
  const metrics = new Metrics();
  // The embedded default keeps its generated token and demo keys with its data (dev-credentials.ts).
  const saved = embedded ? readCredentials(config.dataDir) : null;
  const adminToken = config.adminToken ?? saved?.adminToken ?? `adm_${randomBytes(24).toString('base64url')}`;
  const services: Services = {
    config, adminToken, log, db, kv, dispatcher, metrics, reads,
    accessLog: !config.accessLog || !log.isLevelEnabled('info') ? null : accessOut ? accessLines(accessOut) : accessThrough(log),
    webhooks: new WebhookDispatcher({
      db, publicBaseUrl: config.publicBaseUrl, allowPrivate: config.webhooks.allowPrivate, allowLoopbackTest: config.webhooks.allowLoopbackTest, timeoutMs: config.webhooks.timeoutMs,
      leaseMs: config.webhooks.leaseMs, pollMs: config.webhooks.pollMs, maxInflight: config.webhooks.concurrency, perEndpoint: config.webhooks.perEndpoint,
      perEndpointMax: config.webhooks.perEndpointMax, endpointFastMs: config.webhooks.endpointFastMs,
      log: log.child({ component: 'webhooks' }), metrics: metrics.webhooks,
    }),
    auth: new Authenticator(db, config.authCacheMs),
    idempotency: new Idempotency(kv, () => { metrics.kvFailOpen.inc(); }),
  };
  const { app, stop: stopApp } = buildApp(allRoutes, services);
  await held?.release();
  const listening = await listen(app, config.host, config.port);
  const scheduler = startScheduler(db, dispatcher, config.expiryPollMs, log);
  const keyRelease = startKeyRelease(db, log);
  const recovery = startRecovery(db, dispatcher, { afterMs: config.attemptRecoveryAfterMs, pollMs: config.attemptRecoveryPollMs }, log);
  const reconciler = startReconciler(db, allConnectors(db), {
    intervalMs: config.reconciliation.intervalMs, windowMs: config.reconciliation.windowMs, delayMs: config.reconciliation.delayMs,
    toleranceMs: config.reconciliation.delayMs, openWaitMs: 3_600_000, leaseSeconds: 120,
  }, log.child({ component: 'reconciliation' }));
  if (failpointsArmed().length) log.warn({ failpoints: failpointsArmed() }, 'FAILPOINTS set: this process dies on purpose at those points (fault tests only)');
  const listener = budget.listen ? startDueListener({ connectionString: databaseUrl, name: `${appName}:listen`, timeouts: config.db, pingMs: config.webhooks.pollMs, log }) : null;
  const demo = config.demoMerchant ? await ensureDemoMerchant(db, services.auth, config.publicBaseUrl, saved?.demo ?? null) : null;
  if (embedded) {
    // An ADMIN_TOKEN given for one start is not written down; the generated one stays.
    const token = config.adminToken ? saved?.adminToken ?? null : adminToken;
    try {
      if (token) writeCredentials(config.dataDir, { adminToken: token, demo: demo ?? saved?.demo ?? null });
    } catch (err) {
      log.warn({ err, dataDir: config.dataDir }, 'could not save the development credentials: the next start prints new ones');
    }
  }
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${listening.port}`;
  if (config.webhooks.allowLoopbackTest && !config.webhooks.allowPrivate) {
    log.info('embedded default: test-mode webhooks may go to this machine (loopback: localhost, 127.0.0.1, ::1); live mode never, and never with DATABASE_URL');
  }
  // The main thread's heap limit, as V8 took it from --max-old-space-size (npm start's default) or its own default.
  const heapLimitMb = Math.round(getHeapStatistics().heap_size_limit / 2 ** 20);
  log.info({ url, workers: config.workers, kv: kv.kind, embeddedPostgres: !!embedded, heapLimitMb }, 'listening');

  // Every step has a deadline inside one overall bound (SHUTDOWN_TIMEOUT_MS), so that a hung
  // Postgres or Redis cannot hold the process: a step past its deadline is abandoned and logged.
  let closing: Promise<void> | null = null;
  async function close(): Promise<void> {
    closing ??= (async () => {
      const end = Date.now() + config.shutdownTimeoutMs;
      const abandoned: string[] = [];
      const step = async (name: string, fn: () => Promise<unknown>, share = 1): Promise<void> => {
        const left = end - Date.now();
        const r = await withDeadline(Promise.resolve().then(fn), Math.max(0, Math.floor(left * share)));
        if (r.timedOut) { abandoned.push(name); log.error({ step: name }, 'shutdown step over its deadline: abandoned'); }
        else if (r.error) log.warn({ err: r.error, step: name }, 'shutdown step failed');
      };
      listening.close();                     // no new connections
      closeConnectionsAfterAnswer();         // kept-alive connections end with their next answer
      // Answer everything already received: at most 15 s and 60 % of the budget.
      const answered = Math.min(Date.now() + 15_000, Date.now() + (end - Date.now()) * 0.6);
      while (activeRequests() > 0 && Date.now() < answered) await new Promise((r) => setTimeout(r, 10));
      accessOut?.flush();
      if (activeRequests() > 0) { abandoned.push(`answers (${activeRequests()} requests)`); log.error({ requests: activeRequests() }, 'shutdown: requests still unanswered; abandoned'); }
      await step('scheduler', () => scheduler.stop(), 0.2);
      await step('key release', () => keyRelease.stop(), 0.2);
      await step('attempt recovery', () => recovery.stop(), 0.2);
      await step('reconciliation', () => reconciler?.stop() ?? Promise.resolve(), 0.2);
      await step('actor workers', () => dispatcher.close(), 0.6); // mailboxes drain: every accepted command finishes
      await step('listener', () => listener?.stop() ?? Promise.resolve(), 0.2);
      await step('webhooks', () => services.webhooks.stop(), 0.3);
      (app as unknown as { close?: () => void }).close?.();
      stopApp();
      await step('postgres pool', () => db.end(), 0.5);
      await step('key-value store', () => kv.close(), 0.5);
      if (embedded) await step('embedded postgres', () => embedded!.stop(), 1);
      accessOut?.flush();
      if (abandoned.length) log.error({ abandoned }, 'stopped; some steps were abandoned at their deadline');
      else log.info('stopped');
    })();
    return closing;
  }
  return { url, port: listening.port, adminToken, databaseUrl, demo, services, close };
}

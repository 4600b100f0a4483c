// Runtime configuration, read once from the environment. Every knob the operator has is here.
import os from 'node:os';
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  publicBaseUrl: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  kvPrefix: string;
  dataDir: string;
  workers: number;
  /** V8 young generation of each actor worker thread, MB (three semi-spaces of a third each); 0: V8's default (48 MB here). */
  workerYoungGenerationMb: number;
  /** V8 old generation limit of each actor worker thread, MB; 0: V8's default. */
  workerOldGenerationMb: number;
  /**
   * Node options of the actor worker threads; absent (always, from the environment): the process's
   * own. In-process test servers pass [] so that tap's preloads are not loaded again in each worker.
   */
  workerExecArgv?: string[];
  adminToken: string | null;
  bodyLimitBytes: number;
  /** Body limit of the public (unauthenticated) checkout endpoints and pages. */
  publicBodyLimitBytes: number;
  /** Total bytes of request bodies being received at once, over all requests; past it 503. */
  bodyMemoryLimitBytes: number;
  /** Public endpoints and pages: requests per minute per client address, and per payment (session) id. */
  publicRateLimitPerMinute: number;
  publicSessionRateLimitPerMinute: number;
  /** Request header holding the client address (set by a trusted load balancer); empty: the peer address. */
  clientIpHeader: string;
  paymentWindowSeconds: number;
  /** Lifetime of a gateway checkout or widget session (docs/decisions.md). */
  sessionWindowSeconds: number;
  expiryPollMs: number;
  rateLimitPerMinute: number;
  authCacheMs: number;
  mailboxLimit: number;
  /** Commands queued for one aggregate id beyond which new ones get 503 (one hot id cannot take a shard). */
  mailboxPerIdLimit: number;
  /** How long one acquirer call may take before its outcome is left to the recovery sweep. */
  connectorTimeoutMs: number;
  /** How long an uncaptured authorization (capture_method manual) is held before the expiry sweep voids it. */
  authorizationWindowSeconds: number;
  /** An attempt with no recorded outcome after this long is recovered (asked of the connector). */
  attemptRecoveryAfterMs: number;
  attemptRecoveryPollMs: number;
  /** Postgres connections this process may open in all (split by src/store/pool-budget.ts). */
  pgPoolMax: number;
  /** Deadlines of every Postgres connection (ms; 0 = off). */
  db: { statementMs: number; lockMs: number; queryMs: number; connectMs: number; keepAliveMs: number };
  /** How long the front end waits for an actor's reply before answering 503. */
  actorDeadlineMs: number;
  /** Every request is answered within this (503 deadline_exceeded past it): pool waits, statements and actor time together. */
  requestDeadlineMs: number;
  /** Upper bound of a graceful shutdown; what is not done by then is abandoned (and logged). */
  shutdownTimeoutMs: number;
  logLevel: string;
  /** One info line per answered request (ACCESS_LOG=0 turns it off). */
  accessLog: boolean;
  metricsPublic: boolean;
  demoMerchant: boolean;
  cardFingerprintKey: string;
  /** How long the method catalog is cached per merchant (at most 60 s: MCS changes reach the page within a minute). */
  catalogCacheMs: number;
  /** Upper bound of one SBP bank list lookup (cache, then Postgres); past it the lists answer empty. */
  sbpLookupDeadlineMs: number;
  webhooks: WebhookConfig;
  reconciliation: ReconciliationConfig;
}

/** Reconciliation of the engine's attempts with the banks' reports (issue 26; docs/operations.md). */
export interface ReconciliationConfig {
  /** How often each process looks for a closed window (0: this process never reconciles). */
  intervalMs: number;
  /** Size of one window. */
  windowMs: number;
  /** A window is reconciled once its end is this far past; at least ATTEMPT_RECOVERY_AFTER_MS. */
  delayMs: number;
}

export interface WebhookConfig {
  dispatch: boolean;
  allowPrivate: boolean;
  /** Test-mode events may go to loopback addresses: on the embedded default only (no DATABASE_URL). */
  allowLoopbackTest?: boolean;
  timeoutMs: number;
  pollMs: number;
  leaseMs: number;
  concurrency: number;
  perEndpoint: number;
  perEndpointMax: number;
  endpointFastMs: number;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  return raw === '1' || raw.toLowerCase() === 'true' || raw.toLowerCase() === 'yes';
}

/** 0 (V8's default) or at least `min`: a worker heap below that would fail at its first load. */
function heapMb(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const n = int(env, name, fallback, 0);
  if (n !== 0 && n < min) throw new Error(`${name} must be 0 (V8's default) or at least ${min}, got "${env[name]}"`);
  return n;
}

function pgPoolMax(env: NodeJS.ProcessEnv): number {
  if (env.DB_POOL_SIZE) throw new Error('DB_POOL_SIZE was replaced by PG_POOL_MAX: the Postgres connections of the whole process (see docs/operations.md)');
  return int(env, 'PG_POOL_MAX', 20, 3);
}

/**
 * PG_LOCK_TIMEOUT_MS: how long a statement may wait for one lock (0: off). A lock wait past it ends
 * the statement with a known outcome (rolled back) instead of the statement timeout's unknown one.
 * At or above the statement timeout it could never fire first, so it is off then.
 */
function lockTimeout(env: NodeJS.ProcessEnv): number {
  const lockMs = int(env, 'PG_LOCK_TIMEOUT_MS', 2_000, 0);
  const statementMs = int(env, 'PG_STATEMENT_TIMEOUT_MS', 5_000, 0);
  return statementMs > 0 && lockMs >= statementMs ? 0 : lockMs;
}

/** The development key of the embedded default and the demo; refused everywhere else. */
export const DEV_FINGERPRINT_KEY = 'dev-only-fingerprint-key';

/**
 * CARD_FINGERPRINT_KEY keys the HMAC of card fingerprints: it must be secret, stable and the same on
 * every process. Only the embedded default (no DATABASE_URL) and the demo may run without one.
 */
function fingerprintKey(env: NodeJS.ProcessEnv, databaseUrl: string | null, demo: boolean): string {
  const key = env.CARD_FINGERPRINT_KEY;
  if (key && key !== DEV_FINGERPRINT_KEY) return key;
  if (!databaseUrl || demo) return key || DEV_FINGERPRINT_KEY;
  throw new Error(`CARD_FINGERPRINT_KEY is ${key ? 'the development key' : 'not set'}: with DATABASE_URL set the server needs `
    + 'its own secret key for card fingerprints, the same on every process and kept for good (changing it changes every new fingerprint). '
    + 'Make one with `openssl rand -hex 32` and set CARD_FINGERPRINT_KEY to it. '
    + 'Only the embedded default (no DATABASE_URL) and the demo (DEMO_MERCHANT=1) run without one.');
}

function reconciliation(env: NodeJS.ProcessEnv, recoveryAfterMs: number): ReconciliationConfig {
  const delayMs = int(env, 'RECONCILIATION_DELAY_MS', Math.max(300_000, recoveryAfterMs), 1);
  if (delayMs < recoveryAfterMs) {
    throw new Error(`RECONCILIATION_DELAY_MS (${delayMs}) must be at least ATTEMPT_RECOVERY_AFTER_MS (${recoveryAfterMs}): `
      + 'a younger window still has attempts the recovery sweep will settle');
  }
  return {
    intervalMs: int(env, 'RECONCILIATION_INTERVAL_MS', 60_000, 0),
    windowMs: int(env, 'RECONCILIATION_WINDOW_MS', 3_600_000, 1000),
    delayMs,
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 3000);
  const host = env.HOST || '0.0.0.0';
  const databaseUrl = env.DATABASE_URL || null;
  const demoMerchant = flag(env, 'DEMO_MERCHANT', !databaseUrl);
  return {
    port,
    host,
    publicBaseUrl: (env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    databaseUrl,
    redisUrl: env.REDIS_URL || null,
    kvPrefix: env.KV_PREFIX ?? 'pe:',
    dataDir: path.resolve(env.DATA_DIR || 'data'),
    workers: int(env, 'WORKERS', Math.max(1, os.availableParallelism?.() ?? os.cpus().length), 1),
    workerYoungGenerationMb: heapMb(env, 'WORKER_YOUNG_GENERATION_MB', 24, 3),
    workerOldGenerationMb: heapMb(env, 'WORKER_OLD_GENERATION_MB', 512, 64),
    adminToken: env.ADMIN_TOKEN || null,
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1),
    publicBodyLimitBytes: int(env, 'PUBLIC_BODY_LIMIT_BYTES', 16 * 1024, 1),
    bodyMemoryLimitBytes: int(env, 'BODY_MEMORY_LIMIT_BYTES', 64 * 1024 * 1024, 1),
    publicRateLimitPerMinute: int(env, 'PUBLIC_RATE_LIMIT_PER_MINUTE', 600, 1),
    publicSessionRateLimitPerMinute: int(env, 'PUBLIC_SESSION_RATE_LIMIT_PER_MINUTE', 120, 1),
    clientIpHeader: (env.CLIENT_IP_HEADER ?? '').trim().toLowerCase(),
    paymentWindowSeconds: int(env, 'PAYMENT_WINDOW_SECONDS', 1800, 1),
    sessionWindowSeconds: int(env, 'SESSION_WINDOW_SECONDS', 24 * 3600, 1),
    expiryPollMs: int(env, 'EXPIRY_POLL_MS', 1000, 10),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 120, 1),
    authCacheMs: int(env, 'AUTH_CACHE_MS', 5000, 0),
    mailboxLimit: int(env, 'MAILBOX_LIMIT', 10000, 1),
    mailboxPerIdLimit: int(env, 'MAILBOX_PER_ID_LIMIT', 100, 1),
    connectorTimeoutMs: int(env, 'CONNECTOR_TIMEOUT_MS', 20_000, 1),
    authorizationWindowSeconds: int(env, 'AUTHORIZATION_WINDOW_SECONDS', 7 * 24 * 3600, 1),
    attemptRecoveryAfterMs: int(env, 'ATTEMPT_RECOVERY_AFTER_MS', 60_000, 1),
    attemptRecoveryPollMs: int(env, 'ATTEMPT_RECOVERY_POLL_MS', 1000, 10),
    pgPoolMax: pgPoolMax(env),
    db: {
      statementMs: int(env, 'PG_STATEMENT_TIMEOUT_MS', 5_000, 0),
      lockMs: lockTimeout(env),
      queryMs: int(env, 'PG_QUERY_TIMEOUT_MS', 6_000, 0),
      connectMs: int(env, 'PG_CONNECT_TIMEOUT_MS', 3_000, 0),
      keepAliveMs: int(env, 'PG_KEEPALIVE_MS', 10_000, 0),
    },
    actorDeadlineMs: int(env, 'ACTOR_DEADLINE_MS', 8_000, 1),
    requestDeadlineMs: int(env, 'REQUEST_DEADLINE_MS', 10_000, 10),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 25_000, 100),
    logLevel: env.LOG_LEVEL || 'info',
    accessLog: flag(env, 'ACCESS_LOG', true),
    metricsPublic: flag(env, 'METRICS_PUBLIC', false),
    demoMerchant,
    cardFingerprintKey: fingerprintKey(env, databaseUrl, demoMerchant),
    catalogCacheMs: Math.min(60_000, int(env, 'CATALOG_CACHE_MS', 30_000, 0)),
    sbpLookupDeadlineMs: int(env, 'SBP_LOOKUP_DEADLINE_MS', 2_000, 10),
    webhooks: {
      dispatch: flag(env, 'WEBHOOK_DISPATCH', true),
      allowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE', false),
      allowLoopbackTest: !databaseUrl && flag(env, 'WEBHOOK_LOOPBACK_TEST', true),
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100),
      pollMs: int(env, 'WEBHOOK_POLL_MS', 5_000, 10),
      leaseMs: int(env, 'WEBHOOK_LEASE_MS', 60_000, 1000),
      concurrency: int(env, 'WEBHOOK_CONCURRENCY', 256, 1),
      perEndpoint: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 32, 1),
      perEndpointMax: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY_MAX', 128, 1),
      endpointFastMs: int(env, 'WEBHOOK_ENDPOINT_FAST_MS', 1_000, 1),
    },
    reconciliation: reconciliation(env, int(env, 'ATTEMPT_RECOVERY_AFTER_MS', 60_000, 1)),
  };
}

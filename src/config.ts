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
  expiryPollMs: number;
  rateLimitPerMinute: number;
  authCacheMs: number;
  mailboxLimit: number;
  dbPoolSize: number;
  logLevel: string;
  metricsPublic: boolean;
  demoMerchant: boolean;
  cardFingerprintKey: string;
  leaseMs: number;
  heartbeatMs: number;
  readCacheSize: number;
  /** How long the method catalog is cached per merchant (at most 60 s: MCS changes reach the page within a minute). */
  catalogCacheMs: number;
  webhooks: WebhookConfig;
}

export interface WebhookConfig {
  dispatch: boolean;
  allowPrivate: boolean;
  timeoutMs: number;
  pollMs: number;
  leaseMs: number;
  concurrency: number;
  perEndpoint: number;
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 3000);
  const host = env.HOST || '0.0.0.0';
  const databaseUrl = env.DATABASE_URL || null;
  return {
    port,
    host,
    publicBaseUrl: (env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    databaseUrl,
    redisUrl: env.REDIS_URL || null,
    kvPrefix: env.KV_PREFIX ?? 'pe:',
    dataDir: path.resolve(env.DATA_DIR || 'data'),
    workers: int(env, 'WORKERS', Math.max(1, os.availableParallelism?.() ?? os.cpus().length), 1),
    adminToken: env.ADMIN_TOKEN || null,
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1),
    publicBodyLimitBytes: int(env, 'PUBLIC_BODY_LIMIT_BYTES', 16 * 1024, 1),
    bodyMemoryLimitBytes: int(env, 'BODY_MEMORY_LIMIT_BYTES', 64 * 1024 * 1024, 1),
    publicRateLimitPerMinute: int(env, 'PUBLIC_RATE_LIMIT_PER_MINUTE', 600, 1),
    publicSessionRateLimitPerMinute: int(env, 'PUBLIC_SESSION_RATE_LIMIT_PER_MINUTE', 120, 1),
    clientIpHeader: (env.CLIENT_IP_HEADER ?? '').trim().toLowerCase(),
    paymentWindowSeconds: int(env, 'PAYMENT_WINDOW_SECONDS', 1800, 1),
    expiryPollMs: int(env, 'EXPIRY_POLL_MS', 1000, 10),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 120, 1),
    authCacheMs: int(env, 'AUTH_CACHE_MS', 5000, 0),
    mailboxLimit: int(env, 'MAILBOX_LIMIT', 10000, 1),
    dbPoolSize: int(env, 'DB_POOL_SIZE', 16, 1),
    logLevel: env.LOG_LEVEL || 'info',
    metricsPublic: flag(env, 'METRICS_PUBLIC', false),
    demoMerchant: flag(env, 'DEMO_MERCHANT', !databaseUrl),
    cardFingerprintKey: env.CARD_FINGERPRINT_KEY || 'dev-only-fingerprint-key',
    leaseMs: int(env, 'LEASE_MS', 2000, 100),
    heartbeatMs: int(env, 'HEARTBEAT_MS', 250, 10),
    readCacheSize: int(env, 'READ_CACHE_SIZE', 20_000, 0),
    catalogCacheMs: Math.min(60_000, int(env, 'CATALOG_CACHE_MS', 30_000, 0)),
    webhooks: {
      dispatch: flag(env, 'WEBHOOK_DISPATCH', true),
      allowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE', false),
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100),
      pollMs: int(env, 'WEBHOOK_POLL_MS', 50, 10),
      leaseMs: int(env, 'WEBHOOK_LEASE_MS', 60_000, 1000),
      concurrency: int(env, 'WEBHOOK_CONCURRENCY', 256, 1),
      perEndpoint: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 32, 1),
    },
  };
}

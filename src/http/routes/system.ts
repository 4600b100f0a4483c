// Health, metrics and the OpenAPI document.
import { buildOpenApi } from '../../api/openapi.js';
import { fail } from '../../errors.js';
import { bearer, tokenMatches } from '../auth.js';
import { bodyBudget } from '../body-budget.js';
import { send, type Ctx } from '../context.js';
import { sendFailure, sendJson } from '../reply.js';
import { CONTENT_TYPE } from '../../metrics/registry.js';
import { readDatabaseFigures } from '../../metrics/database.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

async function timed<T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<'timeout'>((r) => { t = setTimeout(() => r('timeout'), ms); })]).finally(() => clearTimeout(t));
}

async function health(ctx: Ctx, s: Services) {
  const t0 = performance.now();
  const db = await timed(s.db.query('SELECT 1').then(() => 'up' as const, () => 'down' as const), 2000);
  const dbMs = Math.round(performance.now() - t0);
  const kv = await timed(s.kv.ping(), 1000);
  const alive = s.dispatcher.alive();
  const dbUp = db === 'up';
  const status = !dbUp ? 'down' : kv === true && alive.every(Boolean) ? 'ok' : 'degraded';
  sendJson(ctx, dbUp ? 200 : 503, {
    status,
    database: { status: dbUp ? 'up' : 'down', latency_ms: dbMs },
    kv: { status: kv === true ? 'up' : 'down', kind: s.kv.kind },
    workers: { count: alive.length, alive: alive.filter(Boolean).length, inflight: s.dispatcher.inflight() },
    request_id: ctx.requestId,
  });
}

async function metrics(ctx: Ctx, s: Services) {
  if (!s.config.metricsPublic && !tokenMatches(bearer(ctx.headers.authorization), s.adminToken)) {
    return sendFailure(ctx, fail('admin_unauthorized'));
  }
  const [stats, database] = await Promise.all([
    s.dispatcher.stats(2000, true),
    timed(readDatabaseFigures(s.db).catch((err: Error) => { s.log.warn({ err }, 'metrics: database figures unavailable'); return null; }), 2000),
  ]);
  const inflight = s.dispatcher.inflight();
  const alive = s.dispatcher.alive();
  const body = await s.metrics.render({
    shards: stats.map((st, i) => ({ alive: alive[i] ?? false, queue: inflight[i] ?? 0, mailboxDepth: st?.mailboxDepth ?? null, actors: st?.actors ?? null, metrics: st?.metrics })),
    reads: s.reads.stats,
    body: { inUse: bodyBudget.inUse, refusedTooLarge: bodyBudget.refusedTooLarge, refusedBusy: bodyBudget.refusedBusy },
    kvBreakerOpen: s.kv.openNodes().length,
    pools: { front: s.db },
    database: database === 'timeout' ? null : database,
  });
  send(ctx, 200, body, CONTENT_TYPE);
}

/** The document by the base URL it names: servers started in one process (src/index.ts) may differ. */
const openApiCache = new Map<string, string>();
function openapi(ctx: Ctx, s: Services) {
  const base = s.config.publicBaseUrl;
  let doc = openApiCache.get(base);
  if (doc === undefined) openApiCache.set(base, doc = JSON.stringify(buildOpenApi(base)));
  sendJson(ctx, 200, doc);
}

export const systemRoutes: Route[] = [
  { method: 'GET', path: '/v2/health', api: 'gateway', auth: 'none', handler: health },
  // Operator envelope for its errors (401 admin_unauthorized, 500), like /internal.
  { method: 'GET', path: '/metrics', api: 'internal', auth: 'none', handler: metrics },
  { method: 'GET', path: '/openapi.json', api: 'gateway', auth: 'none', handler: openapi },
];

// Health, metrics and the OpenAPI document.
import { buildOpenApi } from '../../api/openapi.js';
import { fail } from '../../errors.js';
import { bearer, tokenMatches } from '../auth.js';
import { bodyBudget } from '../body-budget.js';
import { send, type Ctx } from '../context.js';
import { sendFailure, sendJson } from '../reply.js';
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
  const stats = await s.dispatcher.stats();
  const inflight = s.dispatcher.inflight();
  const body = s.metrics.render([
    { name: 'actor_mailbox_depth', help: 'Commands queued or running in the actor mailboxes of a shard.', samples: stats.map((st, i) => ({ labels: { shard: i }, value: st?.mailboxDepth ?? 0 })) },
    { name: 'actor_count', help: 'Live (not passivated) actors in a shard.', samples: stats.map((st, i) => ({ labels: { shard: i }, value: st?.actors ?? 0 })) },
    { name: 'worker_queue', help: 'Commands sent to a shard worker and not yet answered.', samples: inflight.map((n, i) => ({ labels: { shard: i }, value: n })) },
    { name: 'read_batches', help: 'Grouped payment reads sent to Postgres since start, one statement each (counter semantics).', samples: [{ value: s.reads.stats.loads }] },
    { name: 'read_batch_lookups', help: 'Payment reads by id carried by those statements since start (counter semantics).', samples: [{ value: s.reads.stats.lookups }] },
    { name: 'read_batch_failures', help: 'Grouped payment read statements that failed since start (counter semantics).', samples: [{ value: s.reads.stats.failedLoads }] },
    { name: 'read_batch_largest', help: 'Most payment reads one statement has carried since start.', samples: [{ value: s.reads.stats.largest }] },
    { name: 'http_body_bytes_buffered', help: 'Bytes reserved by request bodies being received (limit BODY_MEMORY_LIMIT_BYTES).', samples: [{ value: bodyBudget.inUse }] },
    { name: 'http_body_refused', help: 'Bodies refused since start (counter semantics): too_large over the route limit, busy over the memory budget.', samples: [{ labels: { reason: 'too_large' }, value: bodyBudget.refusedTooLarge }, { labels: { reason: 'busy' }, value: bodyBudget.refusedBusy }] },
    { name: 'kv_breaker_open', help: 'Redis nodes whose circuit breaker is open: their keys fail open at once.', samples: [{ value: s.kv.openNodes().length }] },
    { name: 'worker_alive', help: '1 when the shard worker is running.', samples: s.dispatcher.alive().map((a, i) => ({ labels: { shard: i }, value: a ? 1 : 0 })) },
  ]);
  send(ctx, 200, body, 'text/plain; version=0.0.4; charset=utf-8');
}

let openApiCache: string | null = null;
function openapi(ctx: Ctx, s: Services) {
  openApiCache ??= JSON.stringify(buildOpenApi(s.config.publicBaseUrl));
  sendJson(ctx, 200, openApiCache);
}

export const systemRoutes: Route[] = [
  { method: 'GET', path: '/v2/health', api: 'gateway', auth: 'none', handler: health },
  { method: 'GET', path: '/metrics', api: 'gateway', auth: 'none', handler: metrics },
  { method: 'GET', path: '/openapi.json', api: 'gateway', auth: 'none', handler: openapi },
];

// The uWebSockets.js front end: registers every route table, runs the common pipeline
// (body limit, JSON parsing, auth, rate limit) and answers anything unknown in the envelope of
// the API the path belongs to.
import uWS from 'uWebSockets.js';
import { fail, isFailure } from '../errors.js';
import { isDatabaseUnavailable } from '../store/db.js';
import { createCtx, observeSent, readBody, type ApiName, type Ctx } from './context.js';
import { sendFailure } from './reply.js';
import { bearer, tokenMatches } from './auth.js';
import { checkRate, rateHeaders } from './rate-limit.js';
import type { Route } from './route.js';
import type { Services } from './services.js';

export const isNativeUws = (): boolean => typeof (uWS as unknown as { getParts?: unknown }).getParts === 'function';

export function apiOf(path: string): ApiName {
  if (path.startsWith('/api/')) return 'merchant';
  if (path.startsWith('/internal/')) return 'internal';
  if (path.startsWith('/pay/')) return 'web';
  return 'gateway';
}

async function run(ctx: Ctx, route: Route, s: Services): Promise<void> {
  // The body must be subscribed to synchronously; authentication runs while it arrives.
  const bodyP = route.body ? readBody(ctx, s.config.bodyLimitBytes) : null;
  if (route.auth === 'admin') {
    if (!tokenMatches(bearer(ctx.headers.authorization), s.adminToken)) return sendFailure(ctx, fail('admin_unauthorized'));
  } else if (route.auth === 'merchant') {
    const principal = await s.auth.merchantApi(ctx.headers.authorization);
    if (isFailure(principal)) return sendFailure(ctx, principal);
    ctx.auth = principal;
    const limit = principal.merchant.rateLimitPerMinute ?? s.config.rateLimitPerMinute;
    const rate = await checkRate(s.kv, principal.key.id, limit);
    if (rate.failedOpen) {
      s.metrics.kvFailOpen++;
      s.log.warn({ requestId: ctx.requestId }, 'rate limit store unreachable; request let through');
    }
    ctx.extraHeaders.push(...rateHeaders(rate));
    if (!rate.allowed) return sendFailure(ctx, { ...fail('rate_limited'), retryAfterSeconds: rate.retryAfter });
  }
  let body: unknown;
  if (bodyP) {
    const raw = await bodyP;
    if (raw === 'aborted') return;
    if (raw === 'too_large') return sendFailure(ctx, fail('body_too_large', null, `limit ${s.config.bodyLimitBytes} bytes`));
    // Bodies are JSON whatever Content-Type says: a client that forgets the header still gets
    // the precise answer (400 json_invalid or the field's own code), not a generic 415.
    if (raw.trim() === '') body = {};
    else {
      try { body = JSON.parse(raw); } catch { return sendFailure(ctx, fail('json_invalid')); }
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return sendFailure(ctx, fail('body_invalid'));
  }
  await route.handler(ctx, s, body);
}

/** Errors that mean "the database cannot be reached or answer in time right now": answered 503, retryable. */
export const isUnavailable = isDatabaseUnavailable;

function paramCount(pattern: string): number {
  return pattern.split('/').filter((p) => p.startsWith(':')).length;
}

export function buildApp(routes: Route[], s: Services): uWS.TemplatedApp {
  const app = uWS.App();
  observeSent((ctx) => s.metrics.observe(ctx.route, ctx.method, ctx.status, (performance.now() - ctx.startedAt) / 1000));

  const byPath = new Map<string, Route[]>();
  for (const r of routes) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);

  for (const [pattern, list] of byPath) {
    const n = paramCount(pattern);
    const api = list[0].api;
    app.any(pattern, (res, req) => {
      const ctx = createCtx(res, req, api, pattern, n);
      ctx.extraHeaders.push(['X-Request-Id', ctx.requestId]);
      const route = list.find((r) => r.method === ctx.method);
      if (!route) {
        return sendFailure(ctx, fail('method_not_allowed'), [['Allow', list.map((r) => r.method).join(', ')]]);
      }
      run(ctx, route, s).catch((err: Error) => {
        const unavailable = isUnavailable(err);
        s.log.error({ err, requestId: ctx.requestId, route: pattern }, unavailable ? 'database unreachable' : 'unhandled error in request');
        sendFailure(ctx, unavailable ? { ...fail('service_unavailable'), retryAfterSeconds: 1 } : fail('internal_error'));
      });
    });
  }

  app.any('/*', (res, req) => {
    const path = req.getUrl();
    const ctx = createCtx(res, req, apiOf(path), 'unmatched', 0);
    ctx.extraHeaders.push(['X-Request-Id', ctx.requestId]);
    sendFailure(ctx, fail('route_not_found', null, `${ctx.method} ${path.slice(0, 200)}`));
  });
  return app;
}

export interface Listening { port: number; close(): void }

export function listen(app: uWS.TemplatedApp, host: string, port: number): Promise<Listening> {
  return new Promise((resolve, reject) => {
    // Exclusive: without it a second server on a taken port would silently "succeed".
    const u = uWS as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT: number; us_socket_local_port(s: unknown): number };
    const done = (sock: uWS.us_listen_socket | false) => {
      if (!sock) return reject(new Error(`cannot listen on ${host}:${port} (in use?)`));
      resolve({ port: u.us_socket_local_port(sock), close: () => uWS.us_listen_socket_close(sock) });
    };
    const listenWith = app.listen.bind(app) as unknown as (...a: unknown[]) => void;
    // The ws-based fallback knows only listen(host, port, cb); it is slow but keeps the server up.
    if (isNativeUws()) listenWith(host, port, u.LIBUS_LISTEN_EXCLUSIVE_PORT, done);
    else listenWith(host, port, done);
  });
}

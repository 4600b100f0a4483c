// The uWebSockets.js front end: registers every route table, runs the common pipeline
// (body limit, JSON parsing, auth, rate limit) and answers anything unknown in the envelope of
// the API the path belongs to.
import uWS from 'uWebSockets.js';
import { RequestDeadlines } from './request-deadline.js';
import { isCleanString, parseJsonBody } from '../api/json-input.js';
import { isCheckoutId } from '../domain/ids.js';
import { fail, isFailure, type ApiFailure } from '../errors.js';
import { isDatabaseUnavailable } from '../store/db.js';
import { setBodyMemoryLimit } from './body-budget.js';
import { createCtx, drainBody, observeSent, readBody, type ApiName, type Ctx } from './context.js';
import { sendFailure } from './reply.js';
import { bearer, tokenMatches, type KeyRefusal, type Principal } from './auth.js';
import { answerPreflight, grantWidgetOrigin, widgetOrigin, WIDGET_PREFIX } from './cors.js';
import { gatewayAccess } from '../domain/permissions.js';
import { checkRate, rateHeaders, type RateDecision } from './rate-limit.js';
import type { Route } from './route.js';
import type { Services } from './services.js';

export const isNativeUws = (): boolean => typeof (uWS as unknown as { getParts?: unknown }).getParts === 'function';

export function apiOf(path: string): ApiName {
  if (path.startsWith('/api/')) return 'merchant';
  if (path.startsWith('/internal/')) return 'internal';
  if (path.startsWith('/pay/') || path.startsWith('/link/')) return 'web';
  return 'gateway';
}

/** Public (unauthenticated) checkout endpoints and pages: small bodies, rate-limited per address and per session. */
export const PUBLIC_PREFIXES = ['/checkout/', '/sbp/', '/pay/', '/sandbox/', '/link/', '/demo'];
export const isPublicRoute = (r: Pick<Route, 'auth' | 'path'>): boolean => r.auth === 'none' && PUBLIC_PREFIXES.some((p) => r.path.startsWith(p));

/** The merchant API key check and its rate limit: the refusal (401/403/429) or null. */
async function merchantGate(ctx: Ctx, s: Services): Promise<ApiFailure | null> {
  const principal = await s.auth.merchantApi(ctx.headers.authorization);
  if (isFailure(principal)) return refusedKey(ctx, s, principal);
  ctx.auth = principal;
  return countKey(ctx, s, principal);
}

/**
 * The gateway key check (sk_/rk_/pk_), the key kind's and restricted permissions' verdict for this
 * route, and the key's rate limit: the refusal or null. Channel scope is the handler's to check,
 * once it knows the channel (src/http/gateway.ts).
 */
async function gatewayGate(ctx: Ctx, s: Services, route: Route): Promise<ApiFailure | null> {
  const principal = await s.auth.gatewayApi(ctx.headers.authorization, ctx.headers['x-api-key']);
  if (isFailure(principal)) return principal;
  const access = gatewayAccess(principal.key, route.auth === 'widget' ? 'widget' : 'server', route.permission ?? null);
  if (access === 'key_kind_not_allowed') return fail('api_key_invalid');
  if (access === 'publishable_key_not_allowed') return fail('publishable_key_not_allowed');
  if (access === 'permission_denied') return fail('permission_denied', null, `this key needs ${route.permission}`);
  ctx.auth = principal;
  return countKey(ctx, s, principal);
}

/** Counts a request against its key's limit and adds the X-RateLimit-* headers; the 429 refusal or null. */
async function countKey(ctx: Ctx, s: Services, principal: Principal): Promise<ApiFailure | null> {
  const rate = await checkRate(s.kv, principal.key.id, principal.merchant.rateLimitPerMinute ?? s.config.rateLimitPerMinute);
  noteFailOpen(ctx, s, rate);
  ctx.extraHeaders.push(...rateHeaders(rate));
  return rate.allowed ? null : { ...fail('rate_limited'), retryAfterSeconds: rate.retryAfter };
}

/**
 * A refused merchant key. A valid key of a merchant whose API is off is still counted, and its
 * 403 carries the X-RateLimit-* headers; the answer stays 403 api_disabled even past the limit
 * (it is the one that will not change by waiting).
 */
async function refusedKey(ctx: Ctx, s: Services, refusal: KeyRefusal): Promise<ApiFailure> {
  const { disabledKey, ...failure } = refusal;
  if (disabledKey) await countKey(ctx, s, disabledKey);
  return failure;
}

function noteFailOpen(ctx: Ctx, s: Services, rate: RateDecision): void {
  if (!rate.failedOpen) return;
  s.metrics.kvFailOpen.inc();
  s.log.warn({ requestId: ctx.requestId }, 'rate limit store unreachable; request let through');
}

/** Per client address and per payment (session) id: the 429 refusal or null. */
async function publicGate(ctx: Ctx, s: Services, client: string): Promise<ApiFailure | null> {
  const id = ctx.params[0];
  const session = id !== undefined && isCheckoutId(id) ? id : null;
  const [byAddr, bySession] = await Promise.all([
    checkRate(s.kv, `pub:a:${client}`, s.config.publicRateLimitPerMinute),
    session ? checkRate(s.kv, `pub:s:${session}`, s.config.publicSessionRateLimitPerMinute) : null,
  ]);
  noteFailOpen(ctx, s, byAddr);
  const denied = !byAddr.allowed ? byAddr : bySession && !bySession.allowed ? bySession : null;
  if (!denied) return null;
  return { ...fail('rate_limited', null, denied === byAddr ? 'per client address' : 'per payment'), retryAfterSeconds: denied.retryAfter };
}

/**
 * An Idempotency-Key with a byte outside printable ASCII (uWS hands header bytes over as Latin-1) is
 * refused on every route of both APIs, also where the route takes no key: a client that sent one
 * believes it is protected (docs/operations.md, framing table).
 */
const KEY_BYTES = /^[\x21-\x7e]*$/;
function headerProblem(ctx: Ctx): ApiFailure | null {
  const key = ctx.headers['idempotency-key'];
  if (key !== undefined && !KEY_BYTES.test(key)) return fail('idempotency_key_invalid', 'Idempotency-Key', 'a byte outside printable ASCII was sent');
  return null;
}

/** Path parameters and query values must be storable text: no NUL, no lone surrogate. */
function urlProblem(ctx: Ctx): ApiFailure | null {
  for (const p of ctx.params) if (!isCleanString(p)) return fail('url_invalid', 'path');
  if (ctx.query === '') return null;
  for (const [k, v] of new URLSearchParams(ctx.query)) {
    if (!isCleanString(k) || !isCleanString(v)) return fail('url_invalid', isCleanString(k) ? k : 'query');
  }
  return null;
}

async function run(ctx: Ctx, route: Route, s: Services, client: string | null): Promise<void> {
  ctx.keyless = route.auth === 'none';
  if (ctx.malformed) return sendFailure(ctx, fail('request_malformed'));
  const limit = client !== null ? s.config.publicBodyLimitBytes : s.config.bodyLimitBytes;
  // The body must be subscribed to synchronously; authentication runs while it arrives. Public
  // routes that read their own (form) bodies get theirs read here too, since the rate limit is
  // awaited before their handler runs; the handler's readBody shares this read.
  const bodyP = route.body ? readBody(ctx, limit) : null;
  if (!bodyP && client !== null && route.method !== 'GET') void readBody(ctx, limit);
  let refusal: ApiFailure | null = null;
  try {
    if (route.auth === 'admin') {
      if (!tokenMatches(bearer(ctx.headers.authorization), s.adminToken)) refusal = fail('admin_unauthorized');
    } else if (route.auth === 'merchant') {
      refusal = await merchantGate(ctx, s);
    } else if (route.auth === 'gateway' || route.auth === 'widget') {
      const widget = route.path.startsWith(WIDGET_PREFIX);
      if (widget) grantWidgetOrigin(ctx);
      refusal = await gatewayGate(ctx, s, route);
      if (!refusal && widget) refusal = widgetOrigin(ctx, ctx.auth as Principal, s.log);
    } else if (client !== null) {
      refusal = await publicGate(ctx, s, client);
    }
  } catch (err) {
    // The gate could not reach the database (the key's lookup): answered 503 by onUnhandled, whose
    // "nothing happened" sendFailure withholds from a keyed request. Its key may be in the body.
    if (route.bodyKey && bodyP) await keyFromBody(ctx, bodyP, route.bodyKey);
    throw err;
  }
  refusal ??= headerProblem(ctx) ?? urlProblem(ctx);
  if (refusal) {
    // "Nothing happened" is never said of a keyed request (sendFailure): a key in the body is
    // looked for first. Else answered without the body: drained first, so that a client still
    // sending reads the answer.
    if (refusal.code === 'service_unavailable' && route.bodyKey && bodyP) await keyFromBody(ctx, bodyP, route.bodyKey);
    else if (ctx.bodyRead) { ctx.discardBody?.(); await ctx.bodyRead; }
    return sendFailure(ctx, refusal);
  }
  let body: unknown;
  if (bodyP) {
    const raw = await bodyP;
    if (raw === 'aborted' || raw === 'discarded') return;
    if (raw === 'too_large') return sendFailure(ctx, fail('body_too_large', null, `limit ${limit} bytes`));
    if (raw === 'busy') return sendFailure(ctx, { ...fail('service_unavailable'), retryAfterSeconds: 1 });
    // Bodies are JSON whatever Content-Type says: a client that forgets the header still gets
    // the precise answer (400 json_invalid or the field's own code), not a generic 415.
    if (raw.trim() === '') body = Object.create(null);
    else {
      const parsed = parseJsonBody(raw);
      if (!parsed.ok) {
        if (parsed.problem === 'too_deep') return sendFailure(ctx, fail('json_too_deep'));
        if (parsed.problem === 'key_forbidden') return sendFailure(ctx, fail('parameter_unknown', parsed.param));
        return sendFailure(ctx, fail('json_invalid', null, formHint(ctx.headers['content-type'], raw)));
      }
      body = parsed.value;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return sendFailure(ctx, fail('body_invalid'));
  }
  await route.handler(ctx, s, body);
}

/** Sets the request's Idempotency-Key from its body's `field`, when the body is JSON that has one (as the route's handler would). */
async function keyFromBody(ctx: Ctx, bodyP: ReturnType<typeof readBody>, field: string): Promise<void> {
  const raw = await bodyP;
  if (typeof raw !== 'string' || raw.trim() === '') return;
  const parsed = parseJsonBody(raw);
  const key = parsed.ok && typeof parsed.value === 'object' && parsed.value !== null ? (parsed.value as Record<string, unknown>)[field] : undefined;
  if (typeof key === 'string') ctx.headers['idempotency-key'] = key;
}

/**
 * What an unparsable body looks like when it is a form (curl -d without a JSON header, an HTML form
 * post): said, so that the client knows to send JSON instead. Otherwise no detail.
 */
function formHint(contentType: string | undefined, raw: string): string | undefined {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data') return `the body was sent as ${type}; this API takes only JSON`;
  if (/^[\w.\-[\]%]+=[^&]*(&[\w.\-[\]%]+=[^&]*)*$/.test(raw.trim())) return 'the body looks form-encoded (a=1&b=2); this API takes only JSON';
  return undefined;
}

/** The client's address for the public rate limit: the configured header of a trusted proxy, else the peer. Read synchronously. */
function clientAddress(res: uWS.HttpResponse, req: uWS.HttpRequest, header: string): string {
  if (header) {
    const v = req.getHeader(header);
    // X-Forwarded-For style lists: the address the (trusted) proxy appended last.
    if (v) return v.split(',').pop()!.trim().slice(0, 64);
  }
  try { return Buffer.from(res.getRemoteAddressAsText()).toString('latin1'); } catch { return 'unknown'; }
}

function onUnhandled(ctx: Ctx, s: Services, pattern: string) {
  return (err: Error) => {
    const unavailable = isUnavailable(err);
    s.log.error({ err, requestId: ctx.requestId, route: pattern }, unavailable ? 'database unreachable' : 'unhandled error in request');
    sendFailure(ctx, unavailable ? { ...fail('service_unavailable'), retryAfterSeconds: 1 } : fail('internal_error'));
  };
}

/**
 * 404 and 405. Under /api/ a request with a known key still gets its rate-limit headers (and is
 * counted); without a valid key the answer stays the plain 404/405. A body is drained first.
 */
async function answerUnrouted(ctx: Ctx, s: Services, failure: ApiFailure, headers: [string, string][] = []): Promise<void> {
  if (ctx.malformed) return sendFailure(ctx, fail('request_malformed'));
  const drained = drainBody(ctx); // synchronously, before the first await
  let refusal: ApiFailure | null = null;
  if (ctx.api === 'merchant' && ctx.headers.authorization) {
    const principal = await s.auth.merchantApi(ctx.headers.authorization);
    if (!isFailure(principal)) refusal = await countKey(ctx, s, principal);
    else if (principal.disabledKey) await countKey(ctx, s, principal.disabledKey);
  }
  await drained;
  sendFailure(ctx, refusal ?? failure, refusal ? [] : headers);
}

/** Errors that mean "the database cannot be reached or answer in time right now": answered 503, retryable. */
export const isUnavailable = isDatabaseUnavailable;

function paramCount(pattern: string): number {
  return pattern.split('/').filter((p) => p.startsWith(':')).length;
}

/** The app, and `stop` for what it runs besides the listener (the request-deadline sweep). */
export function buildApp(routes: Route[], s: Services): { app: uWS.TemplatedApp; stop(): void } {
  const app = uWS.App();
  setBodyMemoryLimit(s.config.bodyMemoryLimitBytes);
  const accessLog = s.accessLog;
  const deadlines = new RequestDeadlines(s.config.requestDeadlineMs, (ctx) => {
    s.log.warn({ requestId: ctx.requestId, route: ctx.route, ms: s.config.requestDeadlineMs }, 'request past its deadline: answered 503 deadline_exceeded, its late answer dropped');
    sendFailure(ctx, { ...fail('deadline_exceeded', null, `${s.config.requestDeadlineMs} ms`), retryAfterSeconds: 1 });
  });
  observeSent((ctx) => {
    deadlines.settled(ctx);
    const seconds = (performance.now() - ctx.startedAt) / 1000;
    s.metrics.observe(ctx.route, ctx.method, ctx.status, seconds);
    // After the answer is written: one line per request, route pattern only (never the path, the
    // query or a header: what the client sent stays out); failures carry their code as the reason,
    // and a request that made or paid a payment its id, status and method (no second line for it).
    if (accessLog) {
      accessLog({
        method: ctx.method, route: ctx.route, status: ctx.status, ms: Math.round(seconds * 10_000) / 10, requestId: ctx.requestId,
        merchantId: (ctx.auth as Principal | null)?.merchant.id, reason: ctx.code, aborted: ctx.aborted || undefined, ...ctx.payment,
      });
    }
  });

  const byPath = new Map<string, Route[]>();
  for (const r of routes) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);

  for (const [pattern, list] of byPath) {
    const n = paramCount(pattern);
    const api = list[0].api;
    app.any(pattern, (res, req) => {
      const ctx = createCtx(res, req, api, pattern, n);
      ctx.extraHeaders.push(['X-Request-Id', ctx.requestId]);
      const route = list.find((r) => r.method === ctx.method);
      if (!route && ctx.method === 'OPTIONS' && pattern.startsWith(WIDGET_PREFIX)) {
        answerPreflight(ctx, list.map((r) => r.method));
        return;
      }
      if (!route) {
        answerUnrouted(ctx, s, fail('method_not_allowed'), [['Allow', list.map((r) => r.method).join(', ')]]).catch(onUnhandled(ctx, s, pattern));
        return;
      }
      const client = isPublicRoute(route) ? clientAddress(res, req, s.config.clientIpHeader) : null;
      deadlines.watch(ctx);
      run(ctx, route, s, client).catch(onUnhandled(ctx, s, pattern));
    });
  }

  app.any('/*', (res, req) => {
    const path = req.getUrl();
    const ctx = createCtx(res, req, apiOf(path), 'unmatched', 0);
    ctx.extraHeaders.push(['X-Request-Id', ctx.requestId]);
    answerUnrouted(ctx, s, fail('route_not_found', null, `${ctx.method} ${path.slice(0, 200)}`)).catch(onUnhandled(ctx, s, 'unmatched'));
  });
  return { app, stop: () => deadlines.close() };
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

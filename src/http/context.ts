// One request's context: what was copied from uWS's request synchronously, and the helpers that
// answer it safely after any await (abort-aware, corked).
import type { HttpResponse, HttpRequest } from 'uWebSockets.js';
import { requestId } from '../domain/ids.js';
import { pickLang, type Lang } from '../errors.js';
import { bodyBudget } from './body-budget.js';

export type ApiName = 'merchant' | 'gateway' | 'internal' | 'web';

/** What a request's access line says of the payment it made or paid: our own output, never the request's input. */
export interface PaymentLogFields { paymentId: string; paymentStatus: string; paymentMethod?: string; brand?: string; last4?: string }

export interface Ctx {
  res: HttpResponse;
  api: ApiName;
  method: string;
  path: string;
  query: string;
  route: string;
  params: string[];
  headers: Record<string, string>;
  requestId: string;
  lang: Lang;
  startedAt: number;
  aborted: boolean;
  done: boolean;
  status: number;
  /** Headers every answer of this request carries (rate limit, request id, ...). */
  extraHeaders: [string, string][];
  /** A public route (no key: the checkout endpoints, SBP lists): error messages are for the payer. */
  keyless?: boolean;
  /** Filled by the auth step. */
  auth: unknown;
  /** The error code of a failure answer (the access log's reason). */
  code?: string;
  /** The payment this request made or paid, for its access line (one canonical line per request). */
  payment?: PaymentLogFields;
  /** The framing is ambiguous (Content-Length repeated): answered 400 and the connection closed. */
  malformed: boolean;
  /** Close the connection after the answer (a refused body that would not end). */
  closeConnection?: boolean;
  /** The body, once a read has started (uWS delivers it once; later readers share this read). */
  bodyRead?: Promise<BodyResult>;
  /** Turns a read in progress into a drain: nothing more is kept, the read resolves 'discarded' when the body ends. */
  discardBody?: () => void;
  /**
   * Something of this request has committed (or its Idempotency-Key was found holding an object):
   * from then on no failure is answered as "nothing committed" (sendFailure turns it into outcome_unknown).
   */
  committed?: boolean;
}

/** Request headers the engine reads; copied eagerly because uWS's request dies at the first await. */
const HEADERS = ['authorization', 'idempotency-key', 'accept-language', 'content-type', 'content-length', 'transfer-encoding', 'x-api-key', 'user-agent', 'origin'];

export function createCtx(res: HttpResponse, req: HttpRequest, api: ApiName, route: string, paramCount: number): Ctx {
  const headers: Record<string, string> = {};
  for (const h of HEADERS) {
    const v = req.getHeader(h);
    if (v) headers[h] = v;
  }
  // uWS frames the body by the first Content-Length; a proxy in front may read another one
  // (request smuggling), so a repeated header is refused. (Content-Length with Transfer-Encoding
  // never reaches here: uWS closes such a connection itself.)
  let malformed = false;
  if (headers['content-length'] !== undefined) {
    let n = 0;
    req.forEach((k) => { if (k === 'content-length') n++; });
    malformed = n > 1;
  }
  const params: string[] = [];
  for (let i = 0; i < paramCount; i++) params.push(decodeURIComponentSafe(req.getParameter(i) ?? ''));
  const ctx: Ctx = {
    res, api, method: req.getMethod().toUpperCase(), path: req.getUrl(), query: queryOf(req),
    route, params, headers, requestId: requestId(), lang: pickLang(headers['accept-language']), startedAt: performance.now(),
    aborted: false, done: false, status: 0, extraHeaders: [], auth: null, malformed,
  };
  active++;
  res.onAborted(() => markAborted(ctx));
  return ctx;
}

let active = 0;
let closeAfterAnswer = false;
/** Requests received and not yet answered (or aborted). */
export const activeRequests = (): number => active;
/** From now on every answer closes its connection: used while shutting down. */
export function closeConnectionsAfterAnswer(): void { closeAfterAnswer = true; }

function markAborted(ctx: Ctx): void {
  if (ctx.aborted) return;
  ctx.aborted = true;
  if (!ctx.done) active--;
}

/** The ws-based fallback of uWS throws from getQuery on some URLs; the native build never does. */
function queryOf(req: HttpRequest): string {
  try { return req.getQuery() ?? ''; } catch { return ''; }
}

function decodeURIComponentSafe(s: string): string {
  try { return decodeURIComponent(s); } catch { return s; }
}

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK', 201: '201 Created', 204: '204 No Content', 302: '302 Found', 400: '400 Bad Request',
  401: '401 Unauthorized', 403: '403 Forbidden', 404: '404 Not Found', 405: '405 Method Not Allowed', 409: '409 Conflict',
  413: '413 Payload Too Large', 415: '415 Unsupported Media Type', 422: '422 Unprocessable Entity', 429: '429 Too Many Requests',
  500: '500 Internal Server Error', 502: '502 Bad Gateway', 503: '503 Service Unavailable',
};

export type Sent = (ctx: Ctx) => void;
let onSent: Sent = () => {};
/** Registers the one observer of finished answers (metrics). */
export function observeSent(fn: Sent): void { onSent = fn; }

const has = (list: [string, string][], name: string): boolean => list.some(([k]) => k.toLowerCase() === name);

/**
 * Writes a whole answer once; a no-op after an abort or a previous answer. Every 503 carries
 * Retry-After (1 s unless the caller set one) and every answer X-Content-Type-Options: nosniff.
 */
export function send(ctx: Ctx, status: number, body: string, contentType: string, headers: [string, string][] = [], close = false): void {
  if (ctx.done) return;
  ctx.done = true;
  ctx.status = status;
  if (!ctx.aborted) {
    active--;
    close ||= closeAfterAnswer || ctx.closeConnection === true;
    ctx.res.cork(() => {
      ctx.res.writeStatus(STATUS_TEXT[status] ?? String(status));
      ctx.res.writeHeader('Content-Type', contentType);
      for (const [k, v] of ctx.extraHeaders) ctx.res.writeHeader(k, v);
      for (const [k, v] of headers) ctx.res.writeHeader(k, v);
      if (status === 503 && !has(headers, 'retry-after') && !has(ctx.extraHeaders, 'retry-after')) ctx.res.writeHeader('Retry-After', '1');
      if (!has(headers, 'x-content-type-options')) ctx.res.writeHeader('X-Content-Type-Options', 'nosniff');
      ctx.res.end(body, close);
    });
  }
  onSent(ctx);
}

export const sendJson = (ctx: Ctx, status: number, value: unknown, headers: [string, string][] = []): void =>
  send(ctx, status, typeof value === 'string' ? value : JSON.stringify(value), 'application/json; charset=utf-8', headers);

/** A refused body is drained (read and dropped) for at most this long / this many bytes before the answer goes out. */
export const DRAIN_MAX_MS = 2000;
export const DRAIN_MAX_BYTES = 16 * 1024 * 1024;

export type BodyResult = string | 'too_large' | 'busy' | 'discarded' | 'aborted';

/**
 * Reads the whole body up to `limit` bytes. Past the limit (or declared past it) the result is
 * 'too_large'; when the process-wide body memory budget is spent, 'busy'. A refused body is not
 * kept: it is drained (read and dropped) until it ends, and only then does the caller answer, so a
 * client still sending (Node's http client, Expect: 100-continue, which uWS always answers with
 * 100 Continue) reads the answer instead of a reset (uWS resets a connection answered while a
 * large part of its body is unread). A body that does not end within DRAIN_MAX_MS / DRAIN_MAX_BYTES
 * is answered anyway and its connection closed.
 */
export function readBody(ctx: Ctx, limit: number): Promise<BodyResult> {
  // The pipeline may have started the read already (public routes are rate-limited before their
  // handler runs, and uWS hands the body out only to a reader subscribed at once): share it.
  if (ctx.bodyRead) return ctx.bodyRead.then((v) => (typeof v === 'string' && Buffer.byteLength(v) > limit ? 'too_large' : v));
  ctx.bodyRead = startRead(ctx, limit);
  return ctx.bodyRead;
}

/** Whether the request announces a body (a non-zero Content-Length, or Transfer-Encoding). */
export const hasBody = (ctx: Ctx): boolean =>
  ctx.headers['transfer-encoding'] !== undefined || (ctx.headers['content-length'] !== undefined && ctx.headers['content-length'] !== '0');

/**
 * Drains a body that will not be used (an answer decided before it was read): read and dropped,
 * resolved when it ends (at most DRAIN_MAX_MS / DRAIN_MAX_BYTES), so that the answer sent after it
 * reaches a client still sending. Must be called synchronously in the request handler.
 */
export async function drainBody(ctx: Ctx): Promise<void> {
  if (!hasBody(ctx)) return;
  ctx.bodyRead ??= startRead(ctx, Number.POSITIVE_INFINITY);
  ctx.discardBody?.();
  await ctx.bodyRead;
}

function startRead(ctx: Ctx, limit: number): Promise<BodyResult> {
  const declared = Number(ctx.headers['content-length']);
  let refused: 'too_large' | 'busy' | 'discarded' | null = null;
  let reserved = 0;
  if (Number.isFinite(declared) && declared > limit) refused = 'too_large';
  else if (Number.isFinite(declared)) {
    if (bodyBudget.reserve(declared)) reserved = declared;
    else refused = 'busy';
  }
  if (refused === 'too_large') bodyBudget.refusedTooLarge++;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let drained = 0;
    let finished = false;
    let timer: NodeJS.Timeout | null = null;
    const finish = (v: BodyResult) => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      bodyBudget.release(reserved);
      reserved = 0;
      chunks.length = 0;
      resolve(v);
    };
    const refuse = (why: 'too_large' | 'busy' | 'discarded') => {
      refused = why;
      bodyBudget.release(reserved);
      reserved = 0;
      chunks.length = 0;
      timer = setTimeout(() => { ctx.closeConnection = true; finish(why); }, DRAIN_MAX_MS);
    };
    if (refused) refuse(refused);
    ctx.discardBody = () => { if (!finished && !refused) refuse('discarded'); };
    ctx.res.onData((ab, isLast) => {
      if (finished) return;
      if (refused) {
        drained += ab.byteLength;
        if (isLast) finish(refused);
        else if (drained > DRAIN_MAX_BYTES) { ctx.closeConnection = true; finish(refused); }
        return;
      }
      size += ab.byteLength;
      if (size > limit) { bodyBudget.refusedTooLarge++; refuse('too_large'); if (isLast) finish('too_large'); return; }
      if (size > reserved) {
        if (!bodyBudget.reserve(size - reserved)) { refuse('busy'); if (isLast) finish('busy'); return; }
        reserved = size;
      }
      // uWS reuses the chunk's memory after this callback returns: copy it.
      chunks.push(Buffer.from(ab.slice(0)));
      if (isLast) {
        const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
        finish(text);
      }
    });
    ctx.res.onAborted(() => { markAborted(ctx); finish('aborted'); });
  });
}

// One request's context: what was copied from uWS's request synchronously, and the helpers that
// answer it safely after any await (abort-aware, corked).
import type { HttpResponse, HttpRequest } from 'uWebSockets.js';
import { requestId } from '../domain/ids.js';
import { pickLang, type Lang } from '../errors.js';
import { bodyBudget } from './body-budget.js';

export type ApiName = 'merchant' | 'gateway' | 'internal' | 'web';

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
  /** Filled by the auth step. */
  auth: unknown;
  /** The framing is ambiguous (Content-Length repeated): answered 400 and the connection closed. */
  malformed: boolean;
}

/** Request headers the engine reads; copied eagerly because uWS's request dies at the first await. */
const HEADERS = ['authorization', 'idempotency-key', 'accept-language', 'content-type', 'content-length', 'x-api-key', 'user-agent'];

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
    close ||= closeAfterAnswer;
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

/**
 * Reads the whole body up to `limit` bytes: 'too_large' as soon as it is exceeded (or declared
 * larger), 'busy' when the process-wide body memory budget is spent. Either way nothing more is
 * copied; uWS discards the rest of the body, so the answer can be read by a client still sending
 * (Node's http client, Expect: 100-continue) and the connection stays well framed.
 */
export function readBody(ctx: Ctx, limit: number): Promise<string | 'too_large' | 'busy' | 'aborted'> {
  const declared = Number(ctx.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) { bodyBudget.refusedTooLarge++; return Promise.resolve('too_large'); }
  let reserved = Number.isFinite(declared) ? declared : 0;
  if (!bodyBudget.reserve(reserved)) return Promise.resolve('busy');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let finished = false;
    const finish = (v: string | 'too_large' | 'busy' | 'aborted') => {
      finished = true;
      bodyBudget.release(reserved);
      reserved = 0;
      chunks.length = 0;
      resolve(v);
    };
    ctx.res.onData((ab, isLast) => {
      if (finished) return;
      size += ab.byteLength;
      if (size > limit) { bodyBudget.refusedTooLarge++; return finish('too_large'); }
      if (size > reserved) {
        if (!bodyBudget.reserve(size - reserved)) return finish('busy');
        reserved = size;
      }
      // uWS reuses the chunk's memory after this callback returns: copy it.
      chunks.push(Buffer.from(ab.slice(0)));
      if (isLast) {
        const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
        finish(text);
      }
    });
    ctx.res.onAborted(() => { markAborted(ctx); if (!finished) finish('aborted'); });
  });
}

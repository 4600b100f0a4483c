// One request's context: what was copied from uWS's request synchronously, and the helpers that
// answer it safely after any await (abort-aware, corked).
import type { HttpResponse, HttpRequest } from 'uWebSockets.js';
import { requestId } from '../domain/ids.js';
import { pickLang, type Lang } from '../errors.js';

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
}

/** Request headers the engine reads; copied eagerly because uWS's request dies at the first await. */
const HEADERS = ['authorization', 'idempotency-key', 'accept-language', 'content-type', 'content-length', 'x-api-key', 'user-agent'];

export function createCtx(res: HttpResponse, req: HttpRequest, api: ApiName, route: string, paramCount: number): Ctx {
  const headers: Record<string, string> = {};
  for (const h of HEADERS) {
    const v = req.getHeader(h);
    if (v) headers[h] = v;
  }
  const params: string[] = [];
  for (let i = 0; i < paramCount; i++) params.push(decodeURIComponentSafe(req.getParameter(i) ?? ''));
  const ctx: Ctx = {
    res, api, method: req.getMethod().toUpperCase(), path: req.getUrl(), query: queryOf(req),
    route, params, headers, requestId: requestId(), lang: pickLang(headers['accept-language']), startedAt: performance.now(),
    aborted: false, done: false, status: 0, extraHeaders: [], auth: null,
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

/** Writes a whole answer once; a no-op after an abort or a previous answer. */
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
      ctx.res.end(body, close);
    });
  }
  onSent(ctx);
}

export const sendJson = (ctx: Ctx, status: number, value: unknown, headers: [string, string][] = []): void =>
  send(ctx, status, typeof value === 'string' ? value : JSON.stringify(value), 'application/json; charset=utf-8', headers);

/** Reads the whole body up to `limit` bytes; 'too_large' as soon as it is exceeded. */
export function readBody(ctx: Ctx, limit: number): Promise<string | 'too_large' | 'aborted'> {
  const declared = Number(ctx.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve('too_large');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let finished = false;
    ctx.res.onData((ab, isLast) => {
      if (finished) return;
      size += ab.byteLength;
      if (size > limit) { finished = true; resolve('too_large'); return; }
      // uWS reuses the chunk's memory after this callback returns: copy it.
      chunks.push(Buffer.from(ab.slice(0)));
      if (isLast) { finished = true; resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')); }
    });
    ctx.res.onAborted(() => { markAborted(ctx); if (!finished) { finished = true; resolve('aborted'); } });
  });
}

// Error answers in each API's own envelope, from the one catalogue.
//   merchant API and internal: {error: {type, code, message, param}, request_id}
//   gateway API:               {error: {code, message}} with the code in upper case; every 400/422
//                              is 400 VALIDATION_ERROR with the specific code in `reason`
import { ERRORS, fail, messageFor, type ApiFailure } from '../errors.js';
import { send, sendJson, type Ctx } from './context.js';

/** Refusals the keyed gateway API answers with their own code, not as VALIDATION_ERROR: the request was valid, the balance too small. */
const OWN_CODE_ON_GATEWAY = new Set(['insufficient_balance']);

export function renderFailure(ctx: Ctx, f: ApiFailure): { status: number; body: string } {
  const def = ERRORS[f.code];
  let message = messageFor(f.code, ctx.lang);
  // Detail is for 4xx only: a 5xx never shows internals to the caller.
  if (f.detail && def.status < 500) message = `${message} (${f.detail})`;
  if (ctx.api === 'gateway' && (def.status === 400 || def.status === 422) && def.type === 'invalid_request_error' && !OWN_CODE_ON_GATEWAY.has(f.code)) {
    // The gateway API (keyed routes and the public checkout and SBP list endpoints alike) answers
    // every validation failure as 400 VALIDATION_ERROR, naming the field in the message and in
    // param, with the catalogue's specific code as reason.
    // On the keyless routes the hosted page shows the message to the payer as it is, so it is the
    // specific one in the payer's language, without the developer's "field:" prefix.
    const what = f.code === 'validation_error' ? (f.detail ?? '') : message;
    const text = ctx.keyless && f.code !== 'validation_error' ? message : `${messageFor('validation_error', ctx.lang)} ${f.param ? `${f.param}: ` : ''}${what}`.trim();
    const body = {
      error: {
        code: 'VALIDATION_ERROR', message: text,
        ...(f.param ? { param: f.param } : {}), ...(f.code === 'validation_error' ? {} : { reason: f.code.toUpperCase() }), ...f.extra,
      },
      request_id: ctx.requestId,
    };
    return { status: 400, body: JSON.stringify(body) };
  }
  if (ctx.api === 'gateway' || ctx.api === 'web') {
    return { status: def.status, body: JSON.stringify({ error: { code: f.code.toUpperCase(), message, ...(f.param ? { param: f.param } : {}), ...f.extra }, request_id: ctx.requestId }) };
  }
  return {
    status: def.status,
    body: JSON.stringify({ error: { type: def.type, code: f.code, message, param: f.param ?? null, ...f.extra }, request_id: ctx.requestId }),
  };
}

export function sendFailure(ctx: Ctx, f: ApiFailure, headers: [string, string][] = []): void {
  // "Nothing happened" is never said of a request once something of it has committed, nor of a
  // keyed request at all: its key may hold what an earlier request with it made, so the truthful
  // answer is "retry with the same key" (DESIGN invariant 11; docs/retries.md).
  if (f.code === 'service_unavailable' && (ctx.committed || ctx.headers['idempotency-key'] !== undefined)) {
    f = { ...fail('outcome_unknown'), retryAfterSeconds: f.retryAfterSeconds ?? 1 };
  }
  const { status, body } = renderFailure(ctx, f);
  // The access log's reason: the code alone. A detail may echo the request (the path of a 404, an
  // origin, an id), and the access log promises none of that.
  ctx.code = f.code;
  const h = [...headers];
  if (f.retryAfterSeconds !== undefined) h.push(['Retry-After', String(f.retryAfterSeconds)]);
  // A body refused unread is discarded by uWS up to its framed end, so the client can still read
  // this answer while it sends (closing now would make it fail with EPIPE); it is asked to close.
  if (status === 413) h.push(['Connection', 'close']);
  // Ambiguous framing: nothing after this request on the connection can be trusted.
  send(ctx, status, body, 'application/json; charset=utf-8', h, f.code === 'request_malformed');
}

export { sendJson };

// The response headers of the API as reusable OpenAPI components, and one pass that attaches them
// to every response of a document, so endpoints added later carry them without repeating them:
// X-Request-Id on every answer; X-RateLimit-* once the key is known (not on 401; a 403 of a valid
// key carries them, issue 23); Retry-After
// on 429, 503 and 409 (a key still in use); Idempotent-Replayed and Original-Request on the answers of operations that take
// an Idempotency-Key. What the server sends is in src/http (app.ts, rate-limit.ts, idempotent.ts).

type Obj = Record<string, unknown>;

const int = (description: string, minimum = 0) => ({ schema: { type: 'integer', minimum }, description });

export const RESPONSE_HEADERS = {
  'X-Request-Id': { schema: { type: 'string', pattern: '^req_[0-9A-Za-z]+$' }, description: 'Id of this request (of the first request, on an idempotent replay of a 2xx); quote it to support.' },
  'X-RateLimit-Limit': int('Requests allowed per minute for this API key.', 1),
  'X-RateLimit-Remaining': int('Requests left in the current one-minute window.'),
  'X-RateLimit-Reset': int('When the current window ends, in Unix seconds.'),
  'Retry-After': int('Seconds to wait before trying again: on 429 and 503, and on 409 idempotency_key_in_use (the first request with this key is still running).', 1),
  'Idempotent-Replayed': { schema: { type: 'string', const: 'true' }, description: 'Present when this is the stored answer to an earlier request with the same Idempotency-Key (a 2xx, or a payout\'s 400 INSUFFICIENT_BALANCE).' },
  'Original-Request': { schema: { type: 'string', pattern: '^req_[0-9A-Za-z]+$' }, description: 'On a replay: the id of the request that produced the answer.' },
} as const;
type HeaderName = keyof typeof RESPONSE_HEADERS;

const refs = (names: HeaderName[]): Obj => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
const RATE: HeaderName[] = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/** The headers an answer with this status carries (Idempotent-* added by the caller where they apply). */
function headersFor(status: string, idempotent: boolean): HeaderName[] {
  const names: HeaderName[] = ['X-Request-Id'];
  if (status !== '401') names.push(...RATE);
  if (status === '429' || status === '503' || status === '409') names.push('Retry-After');
  if (idempotent && status.startsWith('2')) names.push('Idempotent-Replayed', 'Original-Request');
  return names;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const isRef = (o: unknown): boolean => typeof o === 'object' && o !== null && '$ref' in o;

/**
 * Adds components.headers and attaches them to every inline response of every operation, and to
 * the shared responses of components.responses (named by status, e.g. E429). Returns the document.
 */
export function withResponseHeaders<T extends Obj>(doc: T): T {
  const components = ((doc as Obj).components ??= {}) as Obj;
  components.headers = { ...(components.headers as Obj | undefined), ...RESPONSE_HEADERS };
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Obj>)) {
    for (const method of METHODS) {
      const op = item[method] as Obj | undefined;
      if (!op) continue;
      const params = [...((item.parameters ?? []) as Obj[]), ...((op.parameters ?? []) as Obj[])];
      const idempotent = params.some((p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key');
      for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Obj>)) {
        if (isRef(response)) continue; // a shared response carries its own headers (below)
        response.headers = { ...refs(headersFor(status, idempotent)), ...(response.headers as Obj | undefined) };
      }
    }
  }
  for (const [name, response] of Object.entries((components.responses ?? {}) as Record<string, Obj>)) {
    const status = /\d{3}/.exec(name)?.[0] ?? '';
    response.headers = { ...refs(headersFor(status, false)), ...(response.headers as Obj | undefined) };
  }
  return doc;
}

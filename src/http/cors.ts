// CORS for the widget endpoints only (/widget/v1/…): the merchant's page calls them from its own
// origin. An origin is allowed when it is on the merchant's framing allowlist (operator
// allowed_domains, shared with the embedded form). A preflight carries no key, so it is answered for
// an origin that some merchant lists; the request itself then needs the key's merchant to list it
// (else 403 ORIGIN_NOT_ALLOWED, before anything is done). Requests without Origin (servers) pass.
import type pg from 'pg';
import { fail, type ApiFailure } from '../errors.js';
import type { Principal } from './auth.js';
import { send, type Ctx } from './context.js';
import type { Services } from './services.js';

export const WIDGET_PREFIX = '/widget/v1/';
const ALLOW_HEADERS = 'authorization, content-type, idempotency-key, x-api-key';
const EXPOSE_HEADERS = 'x-request-id, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, retry-after';

const corsHeaders = (origin: string): [string, string][] => [
  ['Access-Control-Allow-Origin', origin], ['Vary', 'Origin'], ['Access-Control-Expose-Headers', EXPOSE_HEADERS],
];

async function listedBySomeMerchant(db: pg.Pool, origin: string): Promise<boolean> {
  const r = await db.query({ name: 'cors_origin_listed', text: 'SELECT 1 FROM merchants WHERE allowed_domains @> ARRAY[$1::text] LIMIT 1', values: [origin] });
  return r.rows.length > 0;
}

/** OPTIONS on a widget path: 204 with the CORS grant for a listed origin, else 403 without one. */
export async function answerPreflight(ctx: Ctx, s: Services, methods: string[]): Promise<void> {
  const origin = ctx.headers.origin;
  const ok = origin !== undefined && origin.length <= 300 && (await listedBySomeMerchant(s.db, origin));
  if (!ok) return send(ctx, 403, '', 'text/plain; charset=utf-8', [['Vary', 'Origin']]);
  send(ctx, 204, '', 'text/plain; charset=utf-8', [
    ...corsHeaders(origin!), ['Access-Control-Allow-Methods', methods.join(', ')],
    ['Access-Control-Allow-Headers', ALLOW_HEADERS], ['Access-Control-Max-Age', '600'],
  ]);
}

/** For a widget request with a key: the CORS headers added to the answer, or the 403 for an unlisted origin. */
export function widgetOrigin(ctx: Ctx, p: Principal): ApiFailure | null {
  const origin = ctx.headers.origin;
  if (origin === undefined) return null;
  if (!p.merchant.allowedDomains.includes(origin)) return fail('origin_not_allowed', 'Origin', `${origin.slice(0, 100)} is not on the merchant's allowed_domains`);
  ctx.extraHeaders.push(...corsHeaders(origin));
  return null;
}

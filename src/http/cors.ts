// CORS for the widget endpoints only (/widget/v1/…): the merchant's page calls them from its own
// origin. An origin is allowed when it is on the merchant's framing allowlist (operator
// allowed_domains, shared with the embedded form). A preflight carries no key, so it cannot know
// the merchant: it is granted to every origin, and the request itself needs the key's merchant to
// list its origin (else 403 ORIGIN_NOT_ALLOWED, before anything is done). Every answer to a request
// with an Origin carries the CORS grant, so a page off the list reads why it was refused (the
// envelope) instead of a bare "Failed to fetch"; no credentials are involved (the key travels in a
// header), so reading a refusal gives a page nothing. Requests without Origin (servers) pass.
import type { Logger } from '../log.js';
import { fail, type ApiFailure } from '../errors.js';
import type { Principal } from './auth.js';
import { send, type Ctx } from './context.js';
import { sendFailure } from './reply.js';

export const WIDGET_PREFIX = '/widget/v1/';
const ALLOW_HEADERS = 'authorization, content-type, idempotency-key, x-api-key';
const EXPOSE_HEADERS = 'x-request-id, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, retry-after';

const corsHeaders = (origin: string): [string, string][] => [
  ['Access-Control-Allow-Origin', origin], ['Vary', 'Origin'], ['Access-Control-Expose-Headers', EXPOSE_HEADERS],
];

const MAX_ORIGIN = 300;

/** OPTIONS on a widget path: 204 with the CORS grant for any origin; 403 (in the envelope) without one. */
export function answerPreflight(ctx: Ctx, methods: string[]): void {
  const origin = ctx.headers.origin;
  if (origin === undefined || origin.length > MAX_ORIGIN) {
    return sendFailure(ctx, fail('origin_not_allowed', 'Origin', origin === undefined ? 'a CORS preflight needs an Origin header' : `an Origin of at most ${MAX_ORIGIN} characters`), [['Vary', 'Origin']]);
  }
  send(ctx, 204, '', 'text/plain; charset=utf-8', [
    ...corsHeaders(origin), ['Access-Control-Allow-Methods', methods.join(', ')],
    ['Access-Control-Allow-Headers', ALLOW_HEADERS], ['Access-Control-Max-Age', '600'],
  ]);
}

/** Before anything else on a widget path: the CORS grant on whatever the answer will be. */
export function grantWidgetOrigin(ctx: Ctx): void {
  const origin = ctx.headers.origin;
  if (origin !== undefined && origin.length <= MAX_ORIGIN) ctx.extraHeaders.push(...corsHeaders(origin));
}

/** For a widget request with a key: the 403 for an origin the key's merchant does not list (logged with why), else null. */
export function widgetOrigin(ctx: Ctx, p: Principal, log: Logger): ApiFailure | null {
  const origin = ctx.headers.origin;
  if (origin === undefined || p.merchant.allowedDomains.includes(origin)) return null;
  const shown = origin.slice(0, 100);
  log.warn({ requestId: ctx.requestId, merchantId: p.merchant.id, origin: shown, route: ctx.route },
    `widget request refused: origin ${shown} is not on merchant ${p.merchant.id}'s allowed_domains`);
  return fail('origin_not_allowed', 'Origin', `${shown} is not on the merchant's allowed_domains`);
}

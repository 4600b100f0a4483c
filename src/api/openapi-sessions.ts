// The gateway's checkout sessions and widget in the OpenAPI document: paths under {base_url} (each
// path item names its own server), with the sk_/rk_/pk_ security schemes and the gateway envelope
// of openapi-gateway.ts.
import type { TSchema } from '@sinclair/typebox';
import { rootServers } from './openapi-servers.js';
import { CheckoutSession, CreateCheckoutRequest, CreateWidgetSessionRequest, WidgetSessionResponse } from './checkout-sessions.js';

function plain(s: TSchema): Record<string, unknown> {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(s)) as Record<string, unknown>;
  return rest;
}
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
/** Every gateway operation may answer 503 when a dependency is down (as in openapi-gateway.ts). */
const errs = (...codes: number[]) => Object.fromEntries([...codes, 503].map((c) => [String(c), { $ref: `#/components/responses/G${c}` }]));

export function sessionPaths(publicBaseUrl: string): Record<string, unknown> {
  const servers = rootServers(publicBaseUrl);
  const security = [{ gatewayBearer: [] }, { gatewayApiKey: [] }];
  return {
    '/v2/payments/checkout': {
      servers,
      post: {
        operationId: 'createCheckoutSession', summary: 'Create a checkout session, paid on the hosted page at checkout_url',
        description: 'Secret key, or restricted key with payments:write; a channel-scoped key only on its channel. Bad input is 400 VALIDATION_ERROR naming the field.',
        security,
        parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 128 }, description: 'Replays the first answer for 24 hours; another body with the same key is 409' }],
        requestBody: { required: true, content: json(ref('CreateCheckoutRequest')) },
        responses: { 200: { description: 'The session (status open)', content: json(ref('CheckoutSession')) }, ...errs(400, 401, 403, 404, 409, 429) },
      },
    },
    '/v2/payments/checkout/{id}': {
      servers,
      get: {
        operationId: 'getCheckoutSession', summary: 'Retrieve a checkout session',
        description: 'Secret key, or restricted key with payments:read.', security,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^cs_[0-9A-Za-z]{24}$' } }],
        responses: { 200: { description: 'The session', content: json(ref('CheckoutSession')) }, ...errs(401, 403, 404, 429) },
      },
    },
    '/widget/v1/session': {
      servers,
      post: {
        operationId: 'createWidgetSession', summary: 'Create a session for the widget (publishable key; CORS for the merchant\'s allowed origins)',
        description: 'Publishable key, secret key, or restricted key with payments:write.', security,
        requestBody: { required: true, content: json(ref('CreateWidgetSessionRequest')) },
        responses: { 200: { description: 'The session', content: json(ref('WidgetSessionResponse')) }, ...errs(400, 401, 403, 429) },
      },
    },
    '/widget/v1/methods': {
      servers,
      get: {
        operationId: 'listWidgetMethods', summary: 'The effective payment methods of the key\'s merchant (card only, fallback true, when the catalog cannot be read)',
        description: 'Publishable key, secret key, or restricted key with payments:read.', security,
        responses: { 200: { description: 'EffectiveMethodsResponse', content: json(ref('EffectiveMethodsResponse')) }, ...errs(401, 403, 429) },
      },
    },
    '/widget/v1/sbp-members': {
      servers,
      get: {
        operationId: 'listWidgetSbpMembers', summary: 'The active SBP banks for the widget (an empty list when the lookup fails)',
        description: 'Publishable key, secret key, or restricted key with payments:read.', security,
        responses: {
          200: { description: 'The list', headers: { 'Cache-Control': { schema: { type: 'string' }, description: 'public, max-age=300 (no-store when failed open)' } }, content: json(ref('SbpMemberList')) },
          ...errs(401, 403, 429),
        },
      },
    },
  };
}

export const sessionSchemas = () => ({
  CheckoutSession: plain(CheckoutSession), CreateCheckoutRequest: plain(CreateCheckoutRequest),
  CreateWidgetSessionRequest: plain(CreateWidgetSessionRequest), WidgetSessionResponse: plain(WidgetSessionResponse),
});

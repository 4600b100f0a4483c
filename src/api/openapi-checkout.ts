// The public checkout endpoints of the gateway API (/checkout/{sessionId}/…) and /v2/health in the
// OpenAPI document, with the response schemas of the spec's EffectiveMethodsResponse,
// SubmitMethodResponse (next_action's four shapes) and the status read. A test validates real
// answers against these schemas, so they describe what checkout-view.ts renders.
import { Type, type TSchema } from '@sinclair/typebox';
import { METHOD_CODES, RENDER_MODES } from '../domain/methods.js';
import { PayRequest, SubmitMethodRequest } from './checkout.js';
import { Timestamp } from './common.js';
import { rootServers } from './openapi-servers.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const MethodCode = Type.Union(METHOD_CODES.map((m) => Type.Literal(m)));
const SESSION_STATUSES = ['open', 'processing', 'requires_action', 'succeeded', 'failed', 'cancelled', 'expired'] as const;

export const EffectiveMerchantMethod = Type.Object({
  method_code: MethodCode,
  display_order: Type.Integer({ description: 'Lower is shown first' }),
  render_mode: Type.Union(RENDER_MODES.map((m) => Type.Literal(m))),
  is_enabled: Type.Boolean({ description: 'Always true in the effective list' }),
  supports_recurring: Type.Optional(Type.Boolean()),
  supports_refund: Type.Optional(Type.Boolean()),
  min_amount_minor: Type.Optional(Nullable(Type.Integer())),
  max_amount_minor: Type.Optional(Nullable(Type.Integer())),
  allowed_currencies: Type.Optional(Type.Array(Type.String(), { description: 'ISO 4217; empty means any' })),
}, { $id: 'EffectiveMerchantMethod' });

export const EffectiveMethodsResponse = Type.Object({
  methods: Type.Array(EffectiveMerchantMethod),
  fallback: Type.Boolean({ description: 'True when the catalog lookup failed and the list was degraded to card only' }),
  request_id: Type.Optional(Type.String()),
}, { $id: 'EffectiveMethodsResponse' });

export const NextActionSchema = Type.Union([
  Type.Object({ type: Type.Literal('show_qr'), qr_image_url: Nullable(Type.String()), qr_raw_payload: Nullable(Type.String()), deeplink: Nullable(Type.String()) }),
  Type.Object({ type: Type.Literal('redirect'), redirect_url: Type.String({ format: 'uri' }) }),
  Type.Object({ type: Type.Literal('three_ds_challenge'), acs_url: Type.String({ format: 'uri' }), creq: Type.String() }),
  Type.Object({ type: Type.Literal('poll'), hint: Type.String() }),
], { description: 'Discriminated by type' });

const ErrorShape = Type.Object({ code: Type.String(), message: Type.String() });

export const SubmitMethodResponse = Type.Object({
  session_id: Type.String(),
  status: Type.Union(['processing', 'requires_action', 'succeeded', 'failed'].map((s) => Type.Literal(s))),
  next_action: Type.Optional(Nullable(NextActionSchema)),
  error: Type.Optional(ErrorShape),
  request_id: Type.Optional(Type.String()),
}, { $id: 'SubmitMethodResponse', description: 'next_action is absent once the status is terminal; error carries the decline' });

export const CheckoutStatusResponse = Type.Object({
  session_id: Type.String(),
  payment_id: Type.String(),
  status: Type.Union(SESSION_STATUSES.map((s) => Type.Literal(s))),
  payment_status: Type.String({ description: 'The payment\'s own status' }),
  selected_method_code: Nullable(MethodCode),
  next_action: Nullable(NextActionSchema),
  amount: Type.Integer(),
  currency: Type.String(),
  livemode: Type.Boolean(),
  expires_at: Timestamp,
  card: Nullable(Type.Object({ brand: Type.String(), last4: Type.String() })),
  failure: Nullable(ErrorShape),
  return_url: Nullable(Type.String()),
  request_id: Type.Optional(Type.String()),
}, { $id: 'CheckoutStatus' });

export const EmbedCheckResponse = Type.Object({
  origin: Type.String({ description: 'The embedding page\'s origin, canonical' }),
  allowed: Type.Literal(true),
  request_id: Type.Optional(Type.String()),
}, { $id: 'EmbedCheckResponse', description: 'The origin is on the merchant\'s allowed_domains: the hosted page may be framed there' });

function plain(s: TSchema): Record<string, unknown> {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(s)) as Record<string, unknown>;
  return rest;
}
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const gatewayError = (description: string) => ({ description, content: json(ref('GatewayError')) });

const sessionId = { name: 'sessionId', in: 'path', required: true, schema: { type: 'string' }, description: 'A checkout session id (cs_…) or a merchant API payment id' };
const PUBLIC = 'Public (no key); rate limited per client address and per session.';
const E400 = gatewayError('VALIDATION_ERROR: the field in param, the specific code in reason');
const E404 = gatewayError('PAYMENT_NOT_FOUND: no such session');
const E409 = gatewayError('CHECKOUT_CLOSED: the session is already terminal');
const E429 = gatewayError('RATE_LIMITED (see Retry-After)');

export function checkoutPaths(publicBaseUrl: string): Record<string, unknown> {
  const servers = rootServers(publicBaseUrl);
  const tags = ['gateway: public checkout'];
  return {
    '/checkout/{sessionId}/methods': {
      servers,
      get: {
        operationId: 'listCheckoutMethods', summary: 'The effective payment methods of a session (MCA ∩ CMC ∩ MCS, and the session\'s whitelist)',
        description: `${PUBLIC} Fails open: on a catalog lookup error the list is card only with fallback true.`, security: [], tags, parameters: [sessionId],
        responses: { 200: { description: 'EffectiveMethodsResponse', content: json(ref('EffectiveMethodsResponse')) }, 404: E404, 429: E429 },
      },
    },
    '/checkout/{sessionId}/status': {
      servers,
      get: {
        operationId: 'getCheckoutStatus', summary: 'The session\'s state, selected_method_code and next_action', description: PUBLIC, security: [], tags, parameters: [sessionId],
        responses: { 200: { description: 'The status', content: json(ref('CheckoutStatus')) }, 404: E404, 429: E429 },
      },
    },
    '/checkout/{sessionId}/submit-method': {
      servers,
      post: {
        operationId: 'submitCheckoutMethod', summary: 'Pay with any method but card (card uses /pay)',
        description: `${PUBLIC} An sbp bank member id is checked against the active list before any bank call.`, security: [], tags, parameters: [sessionId],
        requestBody: { required: true, content: json(ref('SubmitMethodRequest')) },
        responses: { 200: { description: 'SubmitMethodResponse', content: json(ref('SubmitMethodResponse')) }, 400: E400, 404: E404, 409: E409, 413: gatewayError('BODY_TOO_LARGE'), 429: E429 },
      },
    },
    '/checkout/{sessionId}/pay': {
      servers,
      post: {
        operationId: 'payCheckoutCard', summary: 'Pay by card (3-D Secure answers requires_action with a three_ds_challenge)',
        description: `${PUBLIC} The card number and CVC are never stored or logged.`, security: [], tags, parameters: [sessionId],
        requestBody: { required: true, content: json(ref('PayRequest')) },
        responses: { 200: { description: 'SubmitMethodResponse', content: json(ref('SubmitMethodResponse')) }, 400: E400, 404: E404, 409: E409, 413: gatewayError('BODY_TOO_LARGE'), 429: E429 },
      },
    },
    '/checkout/{sessionId}/cancel': {
      servers,
      post: {
        operationId: 'cancelCheckoutSession', summary: 'The hosted page\'s cancel link: an open gateway session becomes cancelled', description: PUBLIC, security: [], tags, parameters: [sessionId],
        responses: { 200: { description: 'The status', content: json(ref('CheckoutStatus')) }, 404: E404, 409: E409, 429: E429 },
      },
    },
    '/checkout/{sessionId}/embed-check': {
      servers,
      get: {
        operationId: 'checkEmbeddingOrigin', summary: 'May the calling page\'s origin frame this payment? (asked by /js/v1/checkout.js at mount)',
        description: `${PUBLIC} Readable from any origin (Access-Control-Allow-Origin: *). The origin is the request's Origin header, else ?origin=. A refusal is logged with the origin and the merchant.`,
        security: [], tags,
        parameters: [sessionId, { name: 'origin', in: 'query', required: false, schema: { type: 'string' }, description: 'The embedding page\'s origin, used when the request carries no Origin header' }],
        responses: {
          200: { description: 'EmbedCheckResponse', content: json(ref('EmbedCheckResponse')) },
          400: gatewayError('VALIDATION_ERROR (reason PARAMETER_MISSING): neither an Origin header nor ?origin='),
          403: gatewayError('ORIGIN_NOT_ALLOWED: the origin is not on the merchant\'s allowed_domains (named in the message); the browser refuses the frame'),
          404: E404, 429: E429,
        },
      },
    },
    '/v2/health': {
      servers,
      get: {
        operationId: 'health', summary: 'Liveness of the database, the key-value store and the workers', security: [], tags: ['gateway: system'],
        responses: {
          200: { description: 'ok or degraded', content: json({ type: 'object', required: ['status'], properties: { status: { enum: ['ok', 'degraded'] } } }) },
          400: gatewayError('VALIDATION_ERROR (reason URL_INVALID): a NUL or lone surrogate in the URL'),
          503: { description: 'down: the database is unreachable', content: json({ type: 'object', required: ['status'], properties: { status: { const: 'down' } } }) },
        },
      },
    },
  };
}

/** next_action as a reference to the NextAction component (nullable) instead of its inline copy. */
function withNextActionRef(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = { ...(schema.properties as Record<string, unknown>), next_action: { anyOf: [ref('NextAction'), { type: 'null' }] } };
  return { ...schema, properties };
}

export const checkoutSchemas = () => ({
  EffectiveMerchantMethod: plain(EffectiveMerchantMethod),
  EffectiveMethodsResponse: { ...plain(EffectiveMethodsResponse), properties: { ...(plain(EffectiveMethodsResponse).properties as object), methods: { type: 'array', items: ref('EffectiveMerchantMethod') } } },
  NextAction: plain(NextActionSchema),
  SubmitMethodResponse: withNextActionRef(plain(SubmitMethodResponse)),
  CheckoutStatus: withNextActionRef(plain(CheckoutStatusResponse)),
  SubmitMethodRequest: plain(SubmitMethodRequest),
  EmbedCheckResponse: plain(EmbedCheckResponse),
  PayRequest: plain(PayRequest),
});

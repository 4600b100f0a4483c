// The gateway API's part of the OpenAPI document: paths under {base_url} (each path item names
// its own server), the sk_/rk_/pk_ security schemes and the gateway error envelope.
import { Type, type TSchema } from '@sinclair/typebox';
import { ChannelResource, CreateChannelRequest, PatchChannelRequest, RotateChannelSecretRequest } from './channels.js';
import { rootServers } from './openapi-servers.js';
import { BalanceResource, CreatePayoutRequest, PayoutList, PayoutResource } from './payouts.js';

function plain(s: TSchema): Record<string, unknown> {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(s)) as Record<string, unknown>;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });

export const GatewayError = Type.Object({
  error: Type.Object({
    code: Type.String({ description: 'Stable upper-case code, e.g. VALIDATION_ERROR (docs/errors.md)' }),
    message: Type.String(),
    param: Type.Optional(Type.String({ description: 'The field, dotted, or the header' })),
    reason: Type.Optional(Type.String({ description: 'VALIDATION_ERROR only: the specific catalogue code' })),
    reasons: Type.Optional(Type.Array(Type.Object({ reason: Type.String(), count: Type.Integer() }), { description: 'CHANNEL_IN_USE only' })),
  }),
  request_id: Type.String(),
});

const GATEWAY_ERRORS: Record<number, string> = {
  400: 'VALIDATION_ERROR: a field, the body or the headers (both Authorization and X-API-Key) are not valid',
  401: 'AUTHENTICATION_REQUIRED or API_KEY_INVALID: no, unknown or revoked key, or a key of another API',
  403: 'PERMISSION_DENIED (restricted key), PUBLISHABLE_KEY_NOT_ALLOWED, CHANNEL_FORBIDDEN (channel-scoped key), API_DISABLED',
  404: 'No such object for this merchant and mode',
  409: 'The object\'s state refuses the operation',
  429: 'RATE_LIMITED (see Retry-After)',
  502: 'The bank refused the operation (CAPTURE_FAILED, CANCEL_FAILED, REFUND_FAILED); nothing moved',
  503: 'Temporarily unavailable (see Retry-After)',
};
/** Error answers of an operation; every gateway operation may answer 503 when a dependency is down. */
const errs = (...codes: number[]) => Object.fromEntries([...codes, 503].map((c) => [String(c), { $ref: `#/components/responses/G${c}` }]));

export function gatewayPaths(publicBaseUrl: string): Record<string, unknown> {
  const servers = rootServers(publicBaseUrl);
  const security = [{ gatewayBearer: [] }, { gatewayApiKey: [] }];
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'ch_… public id, UUID or slug' };
  const one = (summary: string, operationId: string, permission: string, extra: Record<string, unknown> = {}, codes = [400, 401, 403, 404, 409, 429]) => ({
    operationId, summary, description: `Secret key, or restricted key with ${permission}.`, security, parameters: [id],
    responses: { 200: { description: 'The channel', content: json(ref('Channel')) }, ...errs(...codes) }, ...extra,
  });
  return {
    '/v1/channels': {
      servers,
      get: {
        operationId: 'listChannels', summary: 'List the channels of the key\'s merchant and mode (a channel-scoped key sees its own)',
        description: 'Secret key, or restricted key with channels:read.', security,
        parameters: [{ name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['active', 'paused', 'deleted'] } }],
        responses: {
          200: { description: 'The channels', content: json({ type: 'object', properties: { object: { const: 'list' }, data: { type: 'array', items: ref('Channel') }, count: { type: 'integer' } } }) },
          ...errs(400, 401, 403, 429),
        },
      },
      post: {
        operationId: 'createChannel', summary: 'Create a channel; the answer shows webhook_secret, once',
        description: 'Secret key, or restricted key with channels:write; not a channel-scoped key.', security,
        requestBody: { required: true, content: json(ref('CreateChannelRequest')) },
        responses: { 200: { description: 'The channel with its webhook_secret', content: json(ref('Channel')) }, ...errs(400, 401, 403, 409, 429) },
      },
    },
    '/v1/channels/{id}': {
      servers,
      get: one('Retrieve a channel', 'getChannel', 'channels:read', {}, [401, 403, 404, 429]),
      patch: one('Update a channel (given fields only; branding fields merge, null clears)', 'updateChannel', 'channels:write',
        { requestBody: { required: true, content: json(ref('PatchChannelRequest')) } }),
      delete: one('Soft-delete a channel (restorable); with hard=true delete it for good unless referenced (409 CHANNEL_IN_USE with reasons)', 'deleteChannel', 'channels:write',
        { parameters: [id, { name: 'hard', in: 'query', required: false, schema: { type: 'string', enum: ['true', 'false'] } }] }),
    },
    '/v1/channels/{id}/pause': { servers, post: one('Pause a channel: it refuses new sessions (not the default)', 'pauseChannel', 'channels:write') },
    '/v1/channels/{id}/resume': { servers, post: one('Resume a paused channel', 'resumeChannel', 'channels:write') },
    '/v1/channels/{id}/restore': { servers, post: one('Restore a soft-deleted channel (active again)', 'restoreChannel', 'channels:write') },
    '/v1/channels/{id}/promote-default': { servers, post: one('Make an active channel the default, atomically', 'promoteDefaultChannel', 'channels:write') },
    ...payoutPaths(servers, security),
    '/v1/channels/{id}/rotate-webhook-secret': {
      servers,
      post: one('A new webhook secret, shown once; the old one keeps signing for grace_seconds', 'rotateChannelWebhookSecret', 'channels:write',
        { requestBody: { required: false, content: json(ref('RotateChannelSecretRequest')) } }),
    },
  };
}

/** /v2/payouts and /v2/balance (docs/decisions.md "Payouts and balance"). */
function payoutPaths(servers: unknown[], security: unknown[]): Record<string, unknown> {
  return {
    '/v2/payouts': {
      servers,
      post: {
        operationId: 'createPayout',
        summary: 'Pay out of the available balance to a card, an IBAN or an SBP phone',
        description: 'Secret key, or restricted key with payouts:write; not a channel-scoped key (403 CHANNEL_FORBIDDEN, as for the list, get and balance). Answers 200 with the payout as the bank left it: paid, or failed with failure.code. '
          + 'Above the available balance of the currency: 400 INSUFFICIENT_BALANCE (with available and currency), no payout made; under an Idempotency-Key that refusal is kept for 24 hours, '
          + 'and the same key and body get it again (Idempotent-Replayed: true, Original-Request naming the refused request, the same available) even once the balance has grown: use a new key to try again. '
          + 'Bad destination values: 400 VALIDATION_ERROR naming the field (reason CARD_NUMBER_INVALID, IBAN_INVALID, BIC_INVALID, PHONE_INVALID, SBP_MEMBER_INVALID, PAYOUT_DESTINATION_INVALID). '
          + '503 OUTCOME_UNKNOWN when the bank\'s answer is not recorded yet: retry with the same Idempotency-Key.',
        security,
        parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
        requestBody: { required: true, content: json(ref('CreatePayoutRequest')) },
        responses: { 200: { description: 'The payout', content: json(ref('Payout')) }, ...errs(400, 401, 403, 409, 429) },
      },
      get: {
        operationId: 'listPayouts', summary: 'List payouts of the key\'s merchant and mode, newest first',
        description: 'Secret key, or restricted key with payouts:read.', security,
        parameters: [
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
          { name: 'offset', in: 'query', required: false, schema: { type: 'integer', minimum: 0, default: 0 } },
          { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['pending', 'paid', 'failed'] } },
        ],
        responses: { 200: { description: 'A page of payouts', content: json(ref('PayoutList')) }, ...errs(400, 401, 403, 429) },
      },
    },
    '/v2/payouts/{id}': {
      servers,
      get: {
        operationId: 'getPayout', summary: 'Retrieve a payout', description: 'Secret key, or restricted key with payouts:read.', security,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'po_…' }],
        responses: { 200: { description: 'The payout', content: json(ref('Payout')) }, ...errs(401, 403, 404, 429) },
      },
    },
    '/v2/balance': {
      servers,
      get: {
        operationId: 'getBalance', summary: 'The available and pending balance per currency, in the key\'s mode',
        description: 'Secret key, or restricted key with payouts:read.', security,
        responses: { 200: { description: 'The balance', content: json(ref('Balance')) }, ...errs(401, 403, 429) },
      },
    },
  };
}

export const gatewaySchemas = () => ({
  CreatePayoutRequest: plain(CreatePayoutRequest), Payout: plain(PayoutResource), Balance: plain(BalanceResource),
  PayoutList: { ...plain(PayoutList), properties: { ...(plain(PayoutList).properties as object), data: { type: 'array', items: ref('Payout') } } },
  Channel: plain(ChannelResource), CreateChannelRequest: plain(CreateChannelRequest), PatchChannelRequest: plain(PatchChannelRequest),
  RotateChannelSecretRequest: plain(RotateChannelSecretRequest), GatewayError: plain(GatewayError),
});

export const gatewaySecuritySchemes = {
  gatewayBearer: { type: 'http', scheme: 'bearer', description: 'Gateway: sk_test_/sk_live_ secret, rk_test_/rk_live_ restricted, pk_test_/pk_live_ publishable (widget only) key' },
  gatewayApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Legacy alias of the bearer key; never both' },
};

export const gatewayResponses = () => Object.fromEntries(Object.entries(GATEWAY_ERRORS).map(([c, d]) => [`G${c}`, { description: d, content: json(ref('GatewayError')) }]));

// Gateway payments in the OpenAPI document: GET /v2/payments, GET /v2/payments/{id} and POST
// /v2/payments/{id}/refund, under the root servers with the gateway's keys and error envelope.
import type { TSchema } from '@sinclair/typebox';
import { GatewayPayment, GatewayPaymentList, GatewayRefundRequest, GatewayRefundResponse } from './gateway-payments.js';
import { rootServers } from './openapi-servers.js';

function plain(s: TSchema): Record<string, unknown> {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(s)) as Record<string, unknown>;
  return rest;
}
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const errs = (...codes: number[]) => Object.fromEntries([...codes, 503].map((c) => [String(c), { $ref: `#/components/responses/G${c}` }]));
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 128 }, description: 'payment_id (= the cs_ session id), order_id or connector_transaction_id' };

export function gatewayPaymentPaths(publicBaseUrl: string): Record<string, unknown> {
  const servers = rootServers(publicBaseUrl);
  const security = [{ gatewayBearer: [] }, { gatewayApiKey: [] }];
  const q = (name: string, schema: object, description: string) => ({ name, in: 'query', required: false, schema, description });
  return {
    '/v2/payments': {
      servers,
      get: {
        operationId: 'listGatewayPayments', summary: 'List payments (sessions paid on the hosted page included), newest first',
        description: 'Secret key, or restricted key with payments:read; a channel-scoped key sees its channel\'s payments only.', security,
        parameters: [
          q('limit', { type: 'integer', minimum: 1, maximum: 100, default: 20 }, 'Page size'),
          q('offset', { type: 'integer', minimum: 0, default: 0 }, 'Payments to skip'),
          q('status', { type: 'string', enum: (GatewayPayment.properties.status.anyOf as { const: string }[]).map((x) => x.const) }, 'Only this status'),
          q('from', { type: 'string' }, 'Created at or after (RFC 3339 date-time, or YYYY-MM-DD[ HH:MM] UTC)'),
          q('to', { type: 'string' }, 'Created before (a date or minute is included whole)'),
        ],
        responses: { 200: { description: 'A page', content: json(ref('GatewayPaymentList')) }, ...errs(400, 401, 403, 429) },
      },
    },
    '/v2/payments/{id}': {
      servers,
      get: {
        operationId: 'getGatewayPayment', summary: 'Retrieve a payment by payment_id, order_id, cs_ session id or upstream reference',
        description: 'Secret key, or restricted key with payments:read.', security, parameters: [idParam],
        responses: { 200: { description: 'The payment', content: json(ref('GatewayPayment')) }, ...errs(401, 403, 404, 429) },
      },
    },
    '/v2/payments/{id}/refund': {
      servers,
      post: {
        operationId: 'refundGatewayPayment', summary: 'Refund a payment (all of the remaining balance when amount is omitted)',
        description: 'Secret key, or restricted key with refunds:write. Above the remaining balance: 400 VALIDATION_ERROR whose error states `remaining`. Nothing left or not paid: 409 PAYMENT_NOT_PAYABLE.',
        security, parameters: [idParam],
        requestBody: { required: false, content: json(ref('GatewayRefundRequest')) },
        responses: { 200: { description: 'The refund', content: json(ref('GatewayRefundResponse')) }, ...errs(400, 401, 403, 404, 409, 429) },
      },
    },
  };
}

export const gatewayPaymentSchemas = () => ({
  GatewayPayment: plain(GatewayPayment),
  GatewayPaymentList: { ...plain(GatewayPaymentList), properties: { ...(plain(GatewayPaymentList).properties as object), data: { type: 'array', items: ref('GatewayPayment') } } },
  GatewayRefundRequest: plain(GatewayRefundRequest), GatewayRefundResponse: plain(GatewayRefundResponse),
});

// Gateway payments in the OpenAPI document: GET /v2/payments, GET /v2/payments/{id} and POST
// /v2/payments/{id}/refund, under the root servers with the gateway's keys and error envelope.
import type { TSchema } from '@sinclair/typebox';
import { CaptureRequest, CreateGatewayPaymentRequest, GatewayPayment, GatewayPaymentList, GatewayRefundRequest, GatewayRefundResponse } from './gateway-payments.js';
import { rootServers } from './openapi-servers.js';

function plain(s: TSchema): Record<string, unknown> {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(s)) as Record<string, unknown>;
  return rest;
}
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const errs = (...codes: number[]) => Object.fromEntries([...codes, 503].map((c) => [String(c), { $ref: `#/components/responses/G${c}` }]));
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 128 }, description: 'payment_id (= the cs_ session id), order_id or connector_transaction_id' };

/** Capture and cancel take an Idempotency-Key too (as Stripe's do): a retry is answered from it before any rule. */
const holdKey = {
  name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 },
  description: 'Replays the first answer for 24 hours, before any rule (a retried capture is its capture, never 409 PAYMENT_NOT_CAPTURABLE); another body with the same key is 409',
};

export function gatewayPaymentPaths(publicBaseUrl: string): Record<string, unknown> {
  const servers = rootServers(publicBaseUrl);
  const security = [{ gatewayBearer: [] }, { gatewayApiKey: [] }];
  const q = (name: string, schema: object, description: string) => ({ name, in: 'query', required: false, schema, description });
  return {
    '/v2/payments': {
      servers,
      get: {
        operationId: 'listGatewayPayments', summary: 'List payments (sessions paid on the hosted page included), newest first',
        description: 'Secret key, or restricted key with payments:read; a channel-scoped key sees its channel\'s payments only. payment_id, order_id, checkout_session_id and reference look payments up by the names GET /v2/payments/{id} takes; every filter given narrows the page (they combine). Any other parameter: 400 VALIDATION_ERROR (reason PARAMETER_UNKNOWN).', security,
        parameters: [
          q('limit', { type: 'integer', minimum: 1, maximum: 100, default: 20 }, 'Page size'),
          q('offset', { type: 'integer', minimum: 0, default: 0 }, 'Payments to skip'),
          q('status', { type: 'string', enum: (GatewayPayment.properties.status.anyOf as { const: string }[]).map((x) => x.const) }, 'Only this status'),
          q('from', { type: 'string' }, 'Created at or after (RFC 3339 date-time, or YYYY-MM-DD[ HH:MM] UTC)'),
          q('to', { type: 'string' }, 'Created before (a date or minute is included whole)'),
          q('payment_id', { type: 'string', minLength: 1, maxLength: 128 }, 'Only the payment with this payment_id (= its cs_ checkout session id)'),
          q('order_id', { type: 'string', minLength: 1, maxLength: 128 }, 'Only payments with this order_id (all of them, newest first)'),
          q('checkout_session_id', { type: 'string', minLength: 1, maxLength: 128 }, 'Only the payment of this checkout session (cs_…)'),
          q('reference', { type: 'string', minLength: 1, maxLength: 128 }, 'Only the payment with this upstream reference (its connector_transaction_id, or any bank attempt id of it)'),
        ],
        responses: { 200: { description: 'A page', content: json(ref('GatewayPaymentList')) }, ...errs(400, 401, 403, 429) },
      },
      post: {
        operationId: 'createGatewayPayment', summary: 'Create a direct payment (card, saved-card token or wallet token)',
        description: 'Secret key, or restricted key with payments:write. Raw card data only for merchants the operator allowed (else 403 CARD_DATA_NOT_ALLOWED). The sandbox test cards decide the outcome; a 3-D Secure card answers requires_action with next_action. capture_method manual answers authorized.',
        security,
        parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 128 }, description: 'Replays the first answer for 24 hours; another body with the same key is 409' }],
        requestBody: { required: true, content: json(ref('CreateGatewayPaymentRequest')) },
        responses: { 200: { description: 'The payment (succeeded, failed, requires_action or authorized)', content: json(ref('GatewayPayment')) }, ...errs(400, 401, 403, 404, 409, 429) },
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
    '/v2/payments/{id}/capture': {
      servers,
      post: {
        operationId: 'captureGatewayPayment', summary: 'Capture an authorized payment (all, or a part; the rest is released)',
        description: 'Secret key, or restricted key with payments:write. The bank is asked through the attempt protocol (the attempt id is its idempotency key). Not authorized: 409 PAYMENT_NOT_CAPTURABLE; an amount above the authorized one: 400; another capture or cancel in flight: 409 PAYMENT_ATTEMPT_IN_PROGRESS (retry); the bank refused (sandbox: an amount ending in 666): 502 CAPTURE_FAILED, the payment stays authorized; no answer in time: 503 OUTCOME_UNKNOWN (retry with the same Idempotency-Key).',
        security, parameters: [idParam, holdKey],
        requestBody: { required: false, content: json(ref('CaptureRequest')) },
        responses: { 200: { description: 'The payment, now succeeded', content: json(ref('GatewayPayment')) }, ...errs(400, 401, 403, 404, 409, 429, 502) },
      },
    },
    '/v2/payments/{id}/cancel': {
      servers,
      post: {
        operationId: 'cancelGatewayPayment', summary: 'Cancel (release) an authorized, uncaptured payment',
        description: 'Secret key, or restricted key with payments:write. The bank releases the hold (a void through the attempt protocol). Any other state: 409 PAYMENT_NOT_CANCELLABLE; another capture or cancel in flight: 409 PAYMENT_ATTEMPT_IN_PROGRESS (retry); the bank refused: 502 CANCEL_FAILED. An authorization not captured within AUTHORIZATION_WINDOW_SECONDS (7 days by default) is cancelled by the server the same way (error_code expired).',
        security, parameters: [idParam, holdKey],
        responses: { 200: { description: 'The payment, now cancelled', content: json(ref('GatewayPayment')) }, ...errs(401, 403, 404, 409, 429, 502) },
      },
    },
    '/v2/payments/{id}/refund': {
      servers,
      post: {
        operationId: 'refundGatewayPayment', summary: 'Refund a payment (all of the remaining balance when amount is omitted)',
        description: 'Secret key, or restricted key with refunds:write. Above the remaining balance: 400 VALIDATION_ERROR whose error states `remaining`. Nothing left or not paid: 400 VALIDATION_ERROR (reason PAYMENT_NOT_REFUNDABLE) whose message names the payment\'s status, with `payment_status` and `remaining` in the error.',
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
  CreateGatewayPaymentRequest: plain(CreateGatewayPaymentRequest), CaptureRequest: plain(CaptureRequest),
});

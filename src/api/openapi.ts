// OpenAPI 3.1 document generated from the TypeBox schemas (JSON Schema 2020-12 compatible).
import type { TSchema } from '@sinclair/typebox';
import { ErrorEnvelope } from './common.js';
import { withResponseHeaders } from './openapi-headers.js';
import { merchantServers } from './openapi-servers.js';
import { CreatePaymentRequest, ListPaymentsQuery, PaymentList, PaymentResource, Ping } from './merchant-payments.js';
import { CreateLinkRequest, LinkList, LinkResource, ListLinksQuery } from './links.js';
import { gatewayPaths, gatewayResponses, gatewaySchemas, gatewaySecuritySchemes } from './openapi-gateway.js';
import { sessionPaths, sessionSchemas } from './openapi-sessions.js';
import { gatewayPaymentPaths, gatewayPaymentSchemas } from './openapi-gateway-payments.js';
import { CreateRefundRequest, RefundList, RefundResource, RefundResultResource } from './refunds.js';
import { sbpPaths, sbpSchemas } from './openapi-sbp.js';
import { checkoutPaths, checkoutSchemas } from './openapi-checkout.js';
import { testClockPaths, testClockSchemas } from './openapi-test-clocks.js';

/** Plain JSON of a schema: drops TypeBox's symbol keys and the $id (components are named instead). */
function plain(s: TSchema): Record<string, unknown> {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(s)) as Record<string, unknown>;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const errors = (...codes: number[]) => Object.fromEntries(codes.map((c) => [String(c), { $ref: `#/components/responses/E${c}` }]));

// -- Payment links (links).
function linkPaths(): Record<string, unknown> {
  const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^lnk_[0-9A-Za-z]{20}$' } };
  const listParams = Object.entries((ListLinksQuery as unknown as { properties: Record<string, TSchema> }).properties)
    .map(([name, schema]) => ({ name, in: 'query', required: false, schema: plain(schema) }));
  return {
    '/links': {
      post: {
        operationId: 'createPaymentLink', summary: 'Create a payment link',
        parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
        requestBody: { required: true, content: json(ref('CreateLinkRequest')) },
        responses: { 201: { description: 'Created', content: json(ref('PaymentLink')) }, ...errors(400, 401, 403, 409, 413, 422, 429, 503) },
      },
      get: {
        operationId: 'listPaymentLinks', summary: 'List payment links, newest first', parameters: listParams,
        responses: { 200: { description: 'A page', content: json(ref('PaymentLinkList')) }, ...errors(401, 403, 422, 429) },
      },
    },
    '/links/{id}': {
      get: {
        operationId: 'getPaymentLink', summary: 'Retrieve a payment link', parameters: [idParam],
        responses: { 200: { description: 'The payment link', content: json(ref('PaymentLink')) }, ...errors(401, 403, 404, 429) },
      },
    },
    '/links/{id}/deactivate': {
      post: {
        operationId: 'deactivatePaymentLink', summary: 'Deactivate a payment link for good (idempotent)', parameters: [idParam],
        responses: { 200: { description: 'The payment link, inactive', content: json(ref('PaymentLink')) }, ...errors(401, 403, 404, 429, 503) },
      },
    },
  };
}
const linkSchemas = () => ({
  CreateLinkRequest: plain(CreateLinkRequest), PaymentLink: plain(LinkResource),
  PaymentLinkList: { ...plain(LinkList), properties: { ...(plain(LinkList).properties as object), data: { type: 'array', items: ref('PaymentLink') } } },
});
// -- end of payment links

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed JSON or header', 401: 'No, invalid or revoked API key', 403: 'API disabled for the merchant',
  404: 'No such object', 409: 'Idempotency conflict or key in use', 413: 'Body over the size limit',
  422: 'A field value is not acceptable', 429: 'Rate limit exceeded (see Retry-After)', 503: 'Temporarily unavailable',
};

export function buildOpenApi(publicBaseUrl: string): Record<string, unknown> {
  const queryParams = Object.entries((ListPaymentsQuery as unknown as { properties: Record<string, TSchema> }).properties)
    .map(([name, schema]) => ({ name, in: 'query', required: false, schema: plain(schema) }));
  return withResponseHeaders({
    openapi: '3.1.0',
    info: {
      title: 'Payments engine: merchant API and gateway API', version: '2026-09-22',
      description: 'Date-versioned merchant API (server {base_url}/api/v2) and the gateway API (paths naming their own server {base_url}: /v1/channels, ...). Amounts are integers in minor units. Errors use each API\'s envelope with a stable code.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: merchantServers(publicBaseUrl),
    security: [{ bearer: [] }],
    paths: {
      '/payments': {
        post: {
          operationId: 'createPayment', summary: 'Create a payment',
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
          requestBody: { required: true, content: json(ref('CreatePaymentRequest')) },
          responses: { 201: { description: 'Created', content: json(ref('Payment')) }, ...errors(400, 401, 403, 409, 413, 422, 429, 503) },
        },
        get: {
          operationId: 'listPayments', summary: 'List payments, newest first', parameters: queryParams,
          responses: { 200: { description: 'A page', content: json(ref('PaymentList')) }, ...errors(401, 403, 422, 429) },
        },
      },
      '/payments/{id}': {
        get: {
          operationId: 'getPayment', summary: 'Retrieve a payment by id or by order_id (latest)',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: { description: 'The payment', content: json(ref('Payment')) }, ...errors(401, 403, 404, 429) },
        },
      },
      // Refunds (issue 10).
      '/payments/{id}/refunds': {
        post: {
          operationId: 'createRefund', summary: 'Refund a paid payment, in whole (no amount) or in part',
          description: 'Errors: 409 payment_not_payable (not paid, or nothing left), 422 amount_invalid (not a positive integer), 422 refund_amount_invalid (more than is left), 422 refund_not_supported, 409 refund_in_progress (retryable), 502 refund_failed (the bank refused; a failed refund is listed).',
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } },
          ],
          requestBody: { required: false, content: json(ref('CreateRefundRequest')) },
          responses: {
            201: { description: 'Refunded', content: json(ref('RefundResult')) },
            502: { description: 'The bank refused the refund (refund_failed)', content: json(ref('Error')) },
            ...errors(400, 401, 403, 404, 409, 413, 422, 429, 503),
          },
        },
        get: {
          operationId: 'listRefunds', summary: "The payment's refunds, newest first",
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } },
            { name: 'starting_after', in: 'query', required: false, schema: { type: 'string', description: 'next_cursor of the previous page' } },
          ],
          responses: { 200: { description: 'A page', content: json(ref('RefundList')) }, ...errors(401, 403, 404, 422, 429) },
        },
      },
      '/ping': {
        get: {
          operationId: 'ping', summary: 'Check connectivity and the key',
          responses: { 200: { description: 'Pong', content: json(ref('Ping')) }, ...errors(401, 403, 429) },
        },
      },
      ...linkPaths(),
      ...sbpPaths(publicBaseUrl),
      ...checkoutPaths(publicBaseUrl),

      // The gateway API (issue 11): its own server, keys and error envelope.
      ...gatewayPaths(publicBaseUrl),
      ...sessionPaths(publicBaseUrl),
      ...gatewayPaymentPaths(publicBaseUrl),
      ...testClockPaths(publicBaseUrl),
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'svc_test_… or svc_live_… key' }, ...gatewaySecuritySchemes },
      schemas: {
        CreatePaymentRequest: plain(CreatePaymentRequest), Payment: plain(PaymentResource),
        PaymentList: { ...plain(PaymentList), properties: { ...(plain(PaymentList).properties as object), data: { type: 'array', items: ref('Payment') } } },
        Ping: plain(Ping), Error: plain(ErrorEnvelope),
        ...linkSchemas(),
        CreateRefundRequest: plain(CreateRefundRequest), Refund: plain(RefundResource),
        RefundResult: { ...plain(RefundResultResource), properties: { ...(plain(RefundResultResource).properties as object), refund: ref('Refund'), payment: ref('Payment') } },
        RefundList: { ...plain(RefundList), properties: { ...(plain(RefundList).properties as object), data: { type: 'array', items: ref('Refund') } } },
        ...sbpSchemas(),
        ...checkoutSchemas(),
        ...gatewaySchemas(),
        ...sessionSchemas(),
        ...gatewayPaymentSchemas(),
        ...testClockSchemas(),
      },
      responses: {
        ...Object.fromEntries(Object.entries(ERROR_DESCRIPTIONS).map(([c, d]) => [`E${c}`, { description: d, content: json(ref('Error')) }])),
        ...gatewayResponses(),
      },
    },
  });
}

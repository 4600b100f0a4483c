// OpenAPI of the SBP bank lists of the gateway API. They live at the service root ({base_url}), not
// under the merchant API's /api/v2, so each path item names its own server; they are public.
import type { TSchema } from '@sinclair/typebox';
import { LIST_LIMIT_MAX, LIST_LIMIT_MIN, POPULAR_DEFAULT_LIMIT } from '../domain/sbp-member.js';
import { CheckoutSbpMemberList, SbpMemberList, SbpMemberResource } from './sbp-members.js';
import { rootServers } from './openapi-servers.js';

const plain = (s: TSchema): Record<string, unknown> => {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(s)) as Record<string, unknown>;
  return rest;
};
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });

const limit = (dflt?: number) => ({
  name: 'limit', in: 'query', required: false,
  description: `Digits only, ${LIST_LIMIT_MIN}-${LIST_LIMIT_MAX}; anything else (or the parameter twice) is 400 VALIDATION_ERROR, reason LIMIT_INVALID`,
  schema: { type: 'integer', minimum: LIST_LIMIT_MIN, maximum: LIST_LIMIT_MAX, ...(dflt ? { default: dflt } : {}) },
});
const cacheControl = { 'Cache-Control': { description: '`public, max-age=300` for the list; `no-store` for a failed-open empty answer', schema: { type: 'string' } } };
const FAIL_OPEN = 'Fails open: when the list cannot be read (cache and Postgres) within its deadline, the answer is 200 with an empty list.';
const gatewayError = (description: string) => ({ description, content: json(ref('GatewayError')) });

export function sbpPaths(publicBaseUrl: string): Record<string, unknown> {
  const root = { servers: rootServers(publicBaseUrl) };
  return {
    '/sbp/members': {
      ...root,
      get: {
        operationId: 'listSbpMembers', summary: 'The active SBP banks, popular first, then by display_order', description: FAIL_OPEN, security: [],
        tags: ['gateway: SBP bank lists'],
        responses: { 200: { description: 'The list', headers: cacheControl, content: json(ref('SbpMemberList')) }, 429: gatewayError('Public rate limit per client address') },
      },
    },
    '/sbp/members/popular': {
      ...root,
      get: {
        operationId: 'listPopularSbpMembers', summary: 'The popular SBP banks by display_order', description: FAIL_OPEN, security: [],
        tags: ['gateway: SBP bank lists'], parameters: [limit(POPULAR_DEFAULT_LIMIT)],
        responses: {
          200: { description: 'The list', headers: cacheControl, content: json(ref('SbpMemberList')) },
          400: gatewayError('VALIDATION_ERROR (reason LIMIT_INVALID)'), 429: gatewayError('Public rate limit per client address'),
        },
      },
    },
    '/checkout/{sessionId}/sbp-members': {
      ...root,
      get: {
        operationId: 'listCheckoutSbpMembers', summary: 'The SBP banks for a checkout: the full list for RUB, empty (currency_supported false) otherwise',
        description: `${FAIL_OPEN} A lookup error of the payment itself also answers the empty list (currency_supported false). Answers carry Cache-Control: no-store.`,
        security: [], tags: ['gateway: SBP bank lists'],
        parameters: [{ name: 'sessionId', in: 'path', required: true, schema: { type: 'string' } }, limit()],
        responses: {
          200: { description: 'The list', content: json(ref('CheckoutSbpMemberList')) },
          404: gatewayError('PAYMENT_NOT_FOUND'), 400: gatewayError('VALIDATION_ERROR (reason LIMIT_INVALID)'), 429: gatewayError('Public rate limit per client address or per payment'),
        },
      },
    },
  };
}

export const sbpSchemas = () => ({
  SbpMember: plain(SbpMemberResource),
  SbpMemberList: { ...plain(SbpMemberList), properties: { ...(plain(SbpMemberList).properties as object), data: { type: 'array', items: ref('SbpMember') } } },
  CheckoutSbpMemberList: {
    ...plain(CheckoutSbpMemberList), properties: { ...(plain(CheckoutSbpMemberList).properties as object), data: { type: 'array', items: ref('SbpMember') } },
  },
  GatewayError: {
    type: 'object', required: ['error'],
    properties: {
      error: {
        type: 'object', required: ['code', 'message'],
        properties: { code: { type: 'string', description: 'Stable upper-case code, e.g. LIMIT_INVALID' }, message: { type: 'string' }, param: { type: 'string' } },
      },
      request_id: { type: 'string' },
    },
  },
});

// Test clocks (issue 26) in the OpenAPI document: the merchant API's /test_helpers/test_clocks (under
// its servers, its error envelope) and the gateway API's /v2/test_helpers/test_clocks (root servers,
// gateway keys and envelope). One resource schema serves both.
import type { TSchema } from '@sinclair/typebox';
import { AdvanceTestClockRequest, CreateTestClockRequest, DeletedTestClock, TestClockList, TestClockResource } from './test-clocks.js';
import { rootServers } from './openapi-servers.js';

function plain(s: TSchema): Record<string, unknown> {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(s)) as Record<string, unknown>;
  return rest;
}
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^clock_[0-9A-Za-z]{20}$' } };
const listParams = [
  { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } },
  { name: 'starting_after', in: 'query', required: false, schema: { type: 'string', description: 'id of the last clock of the previous page' } },
];
const NOTE = 'Test mode only: a live key gets 403 test_clock_live_mode. One merchant\'s clocks are the same in both APIs.';
const ADVANCE = 'Sets frozen_time and answers at once with status advancing; everything that became due on the clock (payment and session expiry, authorization voids, webhook retries) then fires, in order and once, and the clock is ready again when all of it has committed. Refused: a time not later than the clock\'s or more than 60 days after it (test_clock_time_invalid), a clock still advancing (409 test_clock_advancing).';

function ops(prefix: 'E' | 'G', security: unknown, created: number) {
  const e = (...codes: number[]) => Object.fromEntries(codes.map((c) => [String(c), { $ref: `#/components/responses/${prefix}${c}` }]));
  const bad = prefix === 'E' ? 422 : 400;
  const s = security ? { security } : {};
  const op = prefix === 'E' ? 'TestClock' : 'GatewayTestClock';
  return {
    collection: {
      post: {
        operationId: `create${op}`, summary: 'Create a test clock', description: NOTE, ...s,
        requestBody: { required: false, content: json(ref('CreateTestClockRequest')) },
        responses: { [created]: { description: 'The clock', content: json(ref('TestClock')) }, ...e(401, 403, bad, 429, 503) },
      },
      get: {
        operationId: `list${op}s`, summary: 'List test clocks, newest first', description: NOTE, ...s, parameters: listParams,
        responses: { 200: { description: 'A page', content: json(ref('TestClockList')) }, ...e(401, 403, bad, 429) },
      },
    },
    item: {
      get: {
        operationId: `get${op}`, summary: 'Retrieve a test clock', ...s, parameters: [idParam],
        responses: { 200: { description: 'The clock', content: json(ref('TestClock')) }, ...e(401, 403, 404, 429) },
      },
      delete: {
        operationId: `delete${op}`, summary: 'Delete a test clock (its objects are detached and keep their state)',
        description: 'Objects on the clock keep their times; their deadlines run on the real time from then on. A clock still advancing: 409 test_clock_advancing.',
        ...s, parameters: [idParam],
        responses: { 200: { description: 'Deleted', content: json(ref('DeletedTestClock')) }, ...e(401, 403, 404, 409, 429) },
      },
    },
    advance: {
      post: {
        operationId: `advance${op}`, summary: 'Move a test clock forward', description: ADVANCE, ...s, parameters: [idParam],
        requestBody: { required: true, content: json(ref('AdvanceTestClockRequest')) },
        responses: { 200: { description: 'The clock, advancing', content: json(ref('TestClock')) }, ...e(401, 403, 404, 409, bad, 429, 503) },
      },
    },
  };
}

export function testClockPaths(publicBaseUrl: string): Record<string, unknown> {
  const m = ops('E', null, 201);
  const servers = rootServers(publicBaseUrl);
  const g = ops('G', [{ gatewayBearer: [] }, { gatewayApiKey: [] }], 200);
  return {
    '/test_helpers/test_clocks': m.collection,
    '/test_helpers/test_clocks/{id}': m.item,
    '/test_helpers/test_clocks/{id}/advance': m.advance,
    '/v2/test_helpers/test_clocks': { servers, ...g.collection },
    '/v2/test_helpers/test_clocks/{id}': { servers, ...g.item },
    '/v2/test_helpers/test_clocks/{id}/advance': { servers, ...g.advance },
  };
}

export const testClockSchemas = () => ({
  CreateTestClockRequest: plain(CreateTestClockRequest), AdvanceTestClockRequest: plain(AdvanceTestClockRequest),
  TestClock: plain(TestClockResource), DeletedTestClock: plain(DeletedTestClock),
  TestClockList: { ...plain(TestClockList), properties: { ...(plain(TestClockList).properties as object), data: { type: 'array', items: ref('TestClock') } } },
});

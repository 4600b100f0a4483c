// Test clocks (issue 26), both APIs: request and resource schemas and the domain -> API view. The
// resource is the same in the merchant API (/api/v2/test_helpers/test_clocks) and the gateway API
// (/v2/test_helpers/test_clocks); only the error envelopes differ.
import { Type, type Static } from '@sinclair/typebox';
import type { TestClock } from '../domain/test-clock.js';
import { Timestamp } from './common.js';
import { isoInstant } from '../domain/instant.js';

const RFC3339 = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$';
const Instant = (description: string) => Type.String({ pattern: RFC3339, maxLength: 40, description });

export const CreateTestClockRequest = Type.Object({
  frozen_time: Type.Optional(Instant('RFC 3339 with a time zone, within 365 days of now; absent: now')),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
}, { additionalProperties: false, $id: 'CreateTestClockRequest' });
export type CreateTestClockRequest = Static<typeof CreateTestClockRequest>;

export const AdvanceTestClockRequest = Type.Object({
  frozen_time: Instant('The new time: later than the clock\'s, at most 60 days after it'),
}, { additionalProperties: false, $id: 'AdvanceTestClockRequest' });
export type AdvanceTestClockRequest = Static<typeof AdvanceTestClockRequest>;

export const TEST_CLOCK_FIELD_CODES = { frozen_time: 'test_clock_time_invalid', name: 'parameter_invalid' } as const;

/** The `test_clock` field a create request of a payment, session, direct payment or link may carry. */
export const TestClockRef = Type.String({ pattern: '^clock_[0-9A-Za-z]{20}$', description: 'Test mode only: the test clock the object runs on (its created_at and every deadline follow that clock)' });

export const TestClockResource = Type.Object({
  id: Type.String({ pattern: '^clock_[0-9A-Za-z]{20}$' }),
  object: Type.Literal('test_clock'),
  name: Type.Union([Type.String(), Type.Null()]),
  frozen_time: Timestamp,
  status: Type.Union([Type.Literal('ready'), Type.Literal('advancing')], { description: 'advancing until everything that became due has committed (expiries, voids, webhook retries)' }),
  livemode: Type.Literal(false),
  created_at: Timestamp,
  request_id: Type.String(),
}, { $id: 'TestClock' });
export type TestClockResource = Static<typeof TestClockResource>;

export const TestClockList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(TestClockResource),
  has_more: Type.Boolean(),
  request_id: Type.String(),
}, { $id: 'TestClockList' });

export const DeletedTestClock = Type.Object({
  id: Type.String(), object: Type.Literal('test_clock'), deleted: Type.Literal(true), request_id: Type.String(),
}, { $id: 'DeletedTestClock' });

export function toTestClockResource(c: TestClock, requestId: string): TestClockResource {
  return {
    id: c.id, object: 'test_clock', name: c.name, frozen_time: isoInstant(c.frozenTime), status: c.status,
    livemode: false, created_at: isoInstant(c.createdAt), request_id: requestId,
  };
}

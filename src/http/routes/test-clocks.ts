// Test clocks (issue 26; test mode only), in both APIs with each API's key and error envelope:
//   merchant API: /api/v2/test_helpers/test_clocks[/{id}[/advance]]   svc_test_ keys
//   gateway API:  /v2/test_helpers/test_clocks[/{id}[/advance]]       sk_test_ keys (rk_test_ with payments:read / payments:write)
// A live key is refused (403 test_clock_live_mode). One merchant's clocks are seen by both APIs.
import { AdvanceTestClockRequest, CreateTestClockRequest, TEST_CLOCK_FIELD_CODES, toTestClockResource } from '../../api/test-clocks.js';
import { compile, dropNulls } from '../../api/validate.js';
import { advanceTarget, startTime, TEST_CLOCK_ID_RE, testClockId } from '../../domain/test-clock.js';
import { fail } from '../../errors.js';
import { advanceTestClock, deleteTestClock, findTestClock, insertTestClock, listTestClocks } from '../../store/test-clocks-repo.js';
import type { Principal } from '../auth.js';
import type { Ctx } from '../context.js';
import { gatewayRoute } from '../gateway.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

const validateCreate = compile(CreateTestClockRequest, TEST_CLOCK_FIELD_CODES);
const validateAdvance = compile(AdvanceTestClockRequest, TEST_CLOCK_FIELD_CODES);

/** The test-mode merchant behind the key, or null after answering a live key's refusal. */
function testMerchant(ctx: Ctx): string | null {
  const who = ctx.auth as Principal;
  if (who.livemode) { sendFailure(ctx, fail('test_clock_live_mode')); return null; }
  return who.merchant.id;
}

async function create(ctx: Ctx, s: Services, raw: unknown): Promise<void> {
  const merchantId = testMerchant(ctx);
  if (!merchantId) return;
  const v = validateCreate(dropNulls(raw ?? {}));
  if (!v.ok) return sendFailure(ctx, v.failure);
  const now = Date.now();
  const at = startTime(v.value.frozen_time, now);
  if (!at.ok) return sendFailure(ctx, fail('test_clock_time_invalid', 'frozen_time', at.detail));
  const clock = await insertTestClock(s.db, { id: testClockId(), merchantId, name: v.value.name ?? null, frozenTime: at.at, status: 'ready', createdAt: now });
  sendJson(ctx, ctx.api === 'merchant' ? 201 : 200, toTestClockResource(clock, ctx.requestId));
}

async function retrieve(ctx: Ctx, s: Services): Promise<void> {
  const merchantId = testMerchant(ctx);
  if (!merchantId) return;
  const id = ctx.params[0];
  const clock = TEST_CLOCK_ID_RE.test(id) ? await findTestClock(s.db, merchantId, id) : null;
  if (!clock) return sendFailure(ctx, fail('test_clock_not_found', 'id'));
  sendJson(ctx, 200, toTestClockResource(clock, ctx.requestId));
}

async function list(ctx: Ctx, s: Services): Promise<void> {
  const merchantId = testMerchant(ctx);
  if (!merchantId) return;
  const q = new URLSearchParams(ctx.query);
  for (const k of q.keys()) if (k !== 'limit' && k !== 'starting_after') return sendFailure(ctx, fail('parameter_unknown', k));
  const limit = q.has('limit') ? (/^\d{1,3}$/.test(q.get('limit')!) ? Number(q.get('limit')) : NaN) : 25;
  if (!(limit >= 1 && limit <= 100)) return sendFailure(ctx, fail('limit_invalid', 'limit'));
  const after = q.get('starting_after') ?? undefined;
  if (after !== undefined && !TEST_CLOCK_ID_RE.test(after)) return sendFailure(ctx, fail('parameter_invalid', 'starting_after'));
  const { clocks, hasMore } = await listTestClocks(s.db, merchantId, limit, after);
  sendJson(ctx, 200, { object: 'list', data: clocks.map((c) => toTestClockResource(c, ctx.requestId)), has_more: hasMore, request_id: ctx.requestId });
}

async function remove(ctx: Ctx, s: Services): Promise<void> {
  const merchantId = testMerchant(ctx);
  if (!merchantId) return;
  const id = ctx.params[0];
  const r = TEST_CLOCK_ID_RE.test(id) ? await deleteTestClock(s.db, merchantId, id) : 'not_found';
  if (r === 'not_found') return sendFailure(ctx, fail('test_clock_not_found', 'id'));
  if (r === 'advancing') return sendFailure(ctx, { ...fail('test_clock_advancing'), retryAfterSeconds: 1 });
  sendJson(ctx, 200, { id, object: 'test_clock', deleted: true, request_id: ctx.requestId });
}

/**
 * Moves the clock and answers at once with status advancing; the schedulers of every process then
 * fire what became due (store/test-clocks-repo.ts) and the last sweep marks the clock ready.
 */
async function advance(ctx: Ctx, s: Services, raw: unknown): Promise<void> {
  const merchantId = testMerchant(ctx);
  if (!merchantId) return;
  const id = ctx.params[0];
  const clock = TEST_CLOCK_ID_RE.test(id) ? await findTestClock(s.db, merchantId, id) : null;
  if (!clock) return sendFailure(ctx, fail('test_clock_not_found', 'id'));
  const v = validateAdvance(dropNulls(raw ?? {}));
  if (!v.ok) return sendFailure(ctx, v.failure);
  if (clock.status === 'advancing') return sendFailure(ctx, { ...fail('test_clock_advancing'), retryAfterSeconds: 1 });
  const to = advanceTarget(clock, v.value.frozen_time);
  if (!to.ok) return sendFailure(ctx, fail('test_clock_time_invalid', 'frozen_time', to.detail));
  const moved = await advanceTestClock(s.db, clock, to.at);
  // Another advance of the same clock committed first.
  if (!moved) return sendFailure(ctx, { ...fail('test_clock_advancing'), retryAfterSeconds: 1 });
  s.log.info({ requestId: ctx.requestId, testClockId: id, from: new Date(clock.frozenTime).toISOString(), to: new Date(to.at).toISOString() }, 'test clock advancing');
  sendJson(ctx, 200, toTestClockResource(moved, ctx.requestId));
}

const M = '/api/v2/test_helpers/test_clocks';
const G = '/v2/test_helpers/test_clocks';

export const testClockRoutes: Route[] = [
  { method: 'POST', path: M, api: 'merchant', auth: 'merchant', body: true, handler: create },
  { method: 'GET', path: M, api: 'merchant', auth: 'merchant', handler: list },
  { method: 'GET', path: `${M}/:id`, api: 'merchant', auth: 'merchant', handler: retrieve },
  { method: 'DELETE', path: `${M}/:id`, api: 'merchant', auth: 'merchant', handler: remove },
  { method: 'POST', path: `${M}/:id/advance`, api: 'merchant', auth: 'merchant', body: true, handler: advance },
  gatewayRoute('POST', G, 'payments:write', create, { body: true }),
  gatewayRoute('GET', G, 'payments:read', list),
  gatewayRoute('GET', `${G}/:id`, 'payments:read', retrieve),
  gatewayRoute('DELETE', `${G}/:id`, 'payments:write', remove),
  gatewayRoute('POST', `${G}/:id/advance`, 'payments:write', advance, { body: true }),
];

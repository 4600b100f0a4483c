// The `test_clock` of a create request (payment, checkout session, direct payment, link), both APIs:
// the clock's id when the key is a test key and the merchant owns that clock; else the refusal.
import { TEST_CLOCK_ID_RE } from '../domain/test-clock.js';
import { fail, type ApiFailure } from '../errors.js';
import { clockTime, findTestClock } from '../store/test-clocks-repo.js';
import type { Principal } from './auth.js';
import type { Services } from './services.js';

export async function clockForCreate(s: Services, who: Principal, ref: string | undefined): Promise<{ testClockId: string | null; now: number } | ApiFailure> {
  if (ref === undefined) return { testClockId: null, now: Date.now() };
  if (who.livemode) return fail('test_clock_live_mode', 'test_clock');
  const clock = TEST_CLOCK_ID_RE.test(ref) ? await findTestClock(s.db, who.merchant.id, ref) : null;
  return clock ? { testClockId: clock.id, now: clock.frozenTime } : fail('test_clock_not_found', 'test_clock');
}

/** The "now" of an object that may be on a test clock (the process clock when it is not, or the clock is gone). */
export async function nowFor(s: Services, testClockId: string | null | undefined): Promise<number> {
  return testClockId ? (await clockTime(s.db, testClockId)) ?? Date.now() : Date.now();
}

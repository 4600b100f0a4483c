// Test clocks (test mode only): a frozen time a developer moves forward by hand. Objects created on
// a clock take its time as their own; every deadline that concerns them (payment window, session
// lifetime, authorization hold, link expiry, webhook retries) is due when the clock reaches it.
// Pure: the bounds and the checks of a create or an advance.
import { prefixedId } from './ids.js';

export type TestClockStatus = 'ready' | 'advancing';

export interface TestClock {
  id: string;
  merchantId: string;
  name: string | null;
  frozenTime: number;
  status: TestClockStatus;
  createdAt: number;
}

export const TEST_CLOCK_ID_RE = /^clock_[0-9A-Za-z]{20}$/;
export const testClockId = (): string => prefixedId('clock', 20);

const DAY = 24 * 3600 * 1000;
/** How far one advance may move a clock: enough for the longest deadline (a 7-day hold) several times over. */
export const MAX_ADVANCE_MS = 60 * DAY;
/** How far from the wall clock a new clock may start (either way). */
export const MAX_START_OFFSET_MS = 365 * DAY;

export type ClockTimeRefusal = { ok: false; detail: string };

/** The instant of an ISO 8601 date-time with an offset (or Z), to the millisecond; NaN when unreadable. */
export function parseInstant(v: string): number {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(v)) return NaN;
  return Date.parse(v);
}

/** A new clock's frozen_time: given, or the wall clock's now; at most a year from now either way. */
export function startTime(given: string | undefined, now: number): { ok: true; at: number } | ClockTimeRefusal {
  if (given === undefined) return { ok: true, at: now };
  const at = parseInstant(given);
  if (!Number.isFinite(at)) return { ok: false, detail: 'frozen_time must be an ISO 8601 date-time with a time zone' };
  if (Math.abs(at - now) > MAX_START_OFFSET_MS) return { ok: false, detail: 'frozen_time must be within 365 days of now' };
  return { ok: true, at };
}

/** An advance's target: later than the clock's time and at most MAX_ADVANCE_MS after it. */
export function advanceTarget(clock: Pick<TestClock, 'frozenTime'>, given: string): { ok: true; at: number } | ClockTimeRefusal {
  const at = parseInstant(given);
  if (!Number.isFinite(at)) return { ok: false, detail: 'frozen_time must be an ISO 8601 date-time with a time zone' };
  if (at <= clock.frozenTime) return { ok: false, detail: `frozen_time must be later than the clock's ${new Date(clock.frozenTime).toISOString()}` };
  if (at - clock.frozenTime > MAX_ADVANCE_MS) return { ok: false, detail: 'one advance moves a clock at most 60 days' };
  return { ok: true, at };
}

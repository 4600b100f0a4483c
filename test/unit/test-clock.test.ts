// The pure rules of test clocks: start time, advance bounds, instants and ids.
import t from 'tap';
import { advanceTarget, MAX_ADVANCE_MS, parseInstant, startTime, TEST_CLOCK_ID_RE, testClockId } from '../../src/domain/test-clock.js';
import { parseDuration } from '../../src/cli/commands/test-clocks.js';

const NOW = Date.parse('2026-11-26T12:00:00.000Z');
const DAY = 86_400_000;

t.test('instants need a time zone and a real shape', async (t) => {
  t.equal(parseInstant('2026-01-10T09:00:00Z'), Date.parse('2026-01-10T09:00:00Z'));
  t.equal(parseInstant('2026-01-10T12:00:00.250+03:00'), Date.parse('2026-01-10T09:00:00.250Z'));
  for (const bad of ['2026-01-10T09:00:00', '2026-01-10', 'tomorrow', '', '2026-01-10 09:00:00Z']) t.ok(Number.isNaN(parseInstant(bad)), bad);
});

t.test('a new clock starts now by default, within 365 days either way', async (t) => {
  t.same(startTime(undefined, NOW), { ok: true, at: NOW });
  t.same(startTime('2026-01-10T09:00:00Z', NOW), { ok: true, at: Date.parse('2026-01-10T09:00:00Z') });
  t.equal(startTime(new Date(NOW + 366 * DAY).toISOString(), NOW).ok, false);
  t.equal(startTime(new Date(NOW - 366 * DAY).toISOString(), NOW).ok, false);
  t.equal(startTime('soon', NOW).ok, false);
});

t.test('an advance moves forward only, at most 60 days', async (t) => {
  const c = { frozenTime: NOW };
  t.same(advanceTarget(c, new Date(NOW + 1).toISOString()), { ok: true, at: NOW + 1 });
  t.same(advanceTarget(c, new Date(NOW + MAX_ADVANCE_MS).toISOString()), { ok: true, at: NOW + MAX_ADVANCE_MS });
  t.equal(advanceTarget(c, new Date(NOW + MAX_ADVANCE_MS + 1).toISOString()).ok, false);
  t.equal(advanceTarget(c, new Date(NOW).toISOString()).ok, false, 'not to the same time');
  t.equal(advanceTarget(c, new Date(NOW - 1000).toISOString()).ok, false, 'never back');
  t.equal(advanceTarget(c, 'later').ok, false);
});

t.test('ids and the CLI durations', async (t) => {
  t.match(testClockId(), TEST_CLOCK_ID_RE);
  t.not(testClockId(), testClockId());
  t.equal(parseDuration('31m'), 31 * 60_000);
  t.equal(parseDuration('7d1m'), 7 * DAY + 60_000);
  t.equal(parseDuration('90s'), 90_000);
  t.ok(Number.isNaN(parseDuration('soon')));
  t.ok(Number.isNaN(parseDuration('5')));
});

// The adaptive per-endpoint bound of webhook requests (src/domain/webhook-endpoint-bound.ts).
import t from 'tap';
import { nextBound } from '../../src/domain/webhook-endpoint-bound.js';

const c = { base: 4, max: 10, fastMs: 1000 };
const fastFull = { ok: true, durationMs: 20, startedFull: true, sinceNarrowed: true };

t.test('a fast 2xx of a request that began with every slot taken widens by one, up to max', async (t) => {
  let b = c.base;
  const seen: number[] = [];
  for (let i = 0; i < 8; i++) seen.push(b = nextBound(b, fastFull, c));
  t.same(seen, [5, 6, 7, 8, 9, 10, 10, 10]);
});

t.test('a fast 2xx with slots to spare leaves the bound alone', async (t) => {
  t.equal(nextBound(7, { ok: true, durationMs: 20, startedFull: false, sinceNarrowed: true }, c), 7);
  t.equal(nextBound(c.base, { ok: true, durationMs: 1000, startedFull: false, sinceNarrowed: true }, c), c.base, 'fastMs itself is fast');
});

t.test('a failure or a slow 2xx halves it, never below base', async (t) => {
  const fail = { ok: false, durationMs: 5, startedFull: true, sinceNarrowed: true };
  const slow = { ok: true, durationMs: 1001, startedFull: true, sinceNarrowed: true };
  t.equal(nextBound(10, fail, c), 5);
  t.equal(nextBound(10, slow, c), 5, 'slower than fastMs counts as a sign of load');
  t.equal(nextBound(5, fail, c), 4, 'floor: base');
  t.equal(nextBound(4, slow, c), 4);
  t.equal(nextBound(9, { ok: false, durationMs: 3, startedFull: false, sinceNarrowed: true }, c), 4, 'a non-2xx halves with slots to spare too');
});

t.test('once per round: an end that began before the latest halving leaves the bound alone', async (t) => {
  t.equal(nextBound(10, { ok: false, durationMs: 5, startedFull: true, sinceNarrowed: false }, c), 10);
  t.equal(nextBound(10, { ok: true, durationMs: 5000, startedFull: true, sinceNarrowed: false }, c), 10);
  t.equal(nextBound(7, { ok: true, durationMs: 20, startedFull: true, sinceNarrowed: false }, c), 8, 'a fast answer still widens');
});

t.test('max equal to base: the fixed bound of before', async (t) => {
  const fixed = { base: 4, max: 4, fastMs: 1000 };
  t.equal(nextBound(4, fastFull, fixed), 4);
  t.equal(nextBound(4, { ok: false, durationMs: 1, startedFull: true, sinceNarrowed: true }, fixed), 4);
});

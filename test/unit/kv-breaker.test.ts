// The key-value store's circuit breaker: opens after a run of failures, refuses calls while open,
// lets one probe through after the pause (doubling after a failed probe, up to the cap), and
// closes when a probe succeeds. A fake clock; no Redis.
import t from 'tap';
import { Breaker } from '../../src/store/kv-breaker.js';

function breaker() {
  const clock = { now: 1_000 };
  const b = new Breaker({ failures: 3, openMs: 100, maxOpenMs: 350, now: () => clock.now });
  return { b, clock };
}

t.test('closed until the run of failures; a success in between starts the count again', async (t) => {
  const { b } = breaker();
  b.failure(); b.failure(); b.success(); b.failure(); b.failure();
  t.equal(b.state, 'closed');
  t.ok(b.allow());
  b.failure();
  t.equal(b.state, 'open');
  t.notOk(b.allow(), 'an open breaker refuses calls');
});

t.test('after the pause one probe at a time; a failed probe doubles the pause up to the cap', async (t) => {
  const { b, clock } = breaker();
  for (let i = 0; i < 3; i++) b.failure();
  clock.now += 99;
  t.notOk(b.allow(), 'still open just before the pause ends');
  clock.now += 1;
  t.equal(b.state, 'half_open');
  t.ok(b.allow(), 'the probe goes');
  t.notOk(b.allow(), 'a second call waits for the probe');
  b.failure();
  clock.now += 199;
  t.notOk(b.allow(), 'the pause doubled to 200');
  clock.now += 1;
  t.ok(b.allow());
  b.failure();
  clock.now += 399;
  t.ok(b.allow(), 'capped at 350, not 400');
  b.failure();
  clock.now += 350;
  t.ok(b.allow());
  b.success();
  t.equal(b.state, 'closed');
  t.ok(b.allow() && b.allow(), 'closed again: every call goes');
  for (let i = 0; i < 3; i++) b.failure();
  clock.now += 100;
  t.ok(b.allow(), 'the pause starts from the first value again after closing');
});

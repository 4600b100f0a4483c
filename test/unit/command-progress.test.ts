// "Nothing committed" is said only of a command that committed nothing (issue 22, DESIGN invariant
// 11): the shard's answer for a thrown error and for a handler's own service_unavailable reply
// depends on what the command did before, not on the last error's class. And the request-deadline
// sweep answers exactly the requests past the deadline, oldest first.
import t from 'tap';
import { answerOf, failureOf } from '../../actors/shard.js';
import { RequestDeadlines } from '../../src/http/request-deadline.js';
import type { Ctx } from '../../src/http/context.js';

const poolWait = new Error('timeout exceeded when trying to connect');
const refused = Object.assign(new Error('duplicate key'), { code: '23505' });
const broken = Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });

t.test('a thrown error: service_unavailable only before anything committed and when the statement surely did not run', async (t) => {
  t.equal(failureOf(poolWait, { committed: false }).failure.code, 'service_unavailable');
  t.equal(failureOf(refused, { committed: false }).failure.code, 'service_unavailable');
  t.equal(failureOf(broken, { committed: false }).failure.code, 'outcome_unknown', 'a broken connection may have committed');
  t.equal(failureOf(poolWait, { committed: true }).failure.code, 'outcome_unknown', 'a pool wait after the attempt committed');
  t.equal(failureOf(refused, { committed: true }).failure.code, 'outcome_unknown');
});

t.test("a handler's own service_unavailable after a commit becomes outcome_unknown; other replies pass as they are", async (t) => {
  const unavailable = { ok: false as const, failure: { code: 'service_unavailable' as const, retryAfterSeconds: 3 } };
  t.same(answerOf(unavailable, { committed: false }), unavailable);
  const after = answerOf(unavailable, { committed: true });
  t.match(after, { ok: false, failure: { code: 'outcome_unknown', retryAfterSeconds: 3 } }, 'the retry hint is kept');
  const refusal = { ok: false as const, failure: { code: 'refund_amount_invalid' as const } };
  t.same(answerOf(refusal, { committed: true }), refusal);
  const ok = { ok: true as const, attemptId: 'att_1', outcome: 'settled' as const };
  t.same(answerOf(ok, { committed: true }), ok);
});

t.test('the deadline sweep answers the requests past the deadline, oldest first, and stops at the first young one', async (t) => {
  const late: string[] = [];
  const d = new RequestDeadlines(1000, (ctx) => late.push(ctx.requestId), 60_000);
  t.teardown(() => d.close());
  const ctx = (id: string, startedAt: number, done = false) => ({ requestId: id, startedAt, done, aborted: false }) as unknown as Ctx;
  const answered = ctx('answered', 0, true);
  d.watch(answered);
  d.watch(ctx('old', 100));
  d.watch(ctx('older-but-later', 50));
  d.watch(ctx('young', 1500));
  d.sweep(1600);
  t.same(late, ['old', 'older-but-later'], 'every request past 1000 ms, in arrival order');
  t.equal(d.size, 1, 'the young one is still watched; answered ones are dropped');
  d.sweep(2600);
  t.same(late, ['old', 'older-but-later', 'young']);
  t.equal(d.size, 0);
});

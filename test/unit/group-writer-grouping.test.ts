// GroupWriter's groupFirst mode (the creates' writer): what arrives in one turn of the event loop
// goes in one statement, writes arriving while a statement is in flight wait for the next group,
// and a spare statement starts only for a full batch, or when the statement in flight has stalled
// (its writes wait on a row another transaction holds; the two tests before that one turn it off). The statement here is a function that
// records each group and completes when the test says so (the database side is covered by
// test/integration/group-writer.test.ts).
import t from 'tap';
import { GroupWriter } from '../../actors/group-writer.js';

function recorder() {
  const groups: number[][] = [];
  const open: Array<() => void> = [];
  const write = (items: number[]) => new Promise<number[]>((resolve) => {
    groups.push(items);
    open.push(() => resolve(items.map((i) => i * 10)));
  });
  const waitForGroups = async (n: number) => { while (groups.length < n) await new Promise((r) => setImmediate(r)); };
  return { groups, open, write, waitForGroups };
}

t.test('one turn, one statement; later arrivals wait for the statement in flight, then go together', async (t) => {
  const r = recorder();
  const w = new GroupWriter(r.write, { maxInflight: 4, maxBatch: 64, groupFirst: true, stalledMs: 0 });
  const first = [1, 2, 3, 4, 5].map((i) => w.submit(i));
  await r.waitForGroups(1);
  t.same(r.groups, [[1, 2, 3, 4, 5]], 'the whole turn in one statement');
  const second = [6, 7, 8].map((i) => w.submit(i));
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(r.groups.length, 1, 'no second statement while the first is in flight and the batch is not full');
  r.open[0]();
  t.same(await Promise.all(first), [10, 20, 30, 40, 50], 'each write gets its own outcome');
  await r.waitForGroups(2);
  t.same(r.groups[1], [6, 7, 8], 'the waiting writes went together');
  r.open[1]();
  t.same(await Promise.all(second), [60, 70, 80]);
});

t.test('a full batch starts a spare statement; a partial one waits for the statement in flight', async (t) => {
  const r = recorder();
  const w = new GroupWriter(r.write, { maxInflight: 2, maxBatch: 4, groupFirst: true, stalledMs: 0 });
  const a = w.submit(0);
  await r.waitForGroups(1);
  const full = [1, 2, 3, 4].map((i) => w.submit(i));
  await r.waitForGroups(2);
  t.same(r.groups[1], [1, 2, 3, 4], 'a full batch goes at once, beside the first');
  const rest = [5, 6].map((i) => w.submit(i));
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(r.groups.length, 2, 'maxInflight reached: the rest waits');
  r.open[1]();
  t.same(await Promise.all(full), [10, 20, 30, 40]);
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(r.groups.length, 2, 'the spare statement does not take a partial batch while another is in flight');
  r.open[0]();
  t.same(await a, 0);
  await r.waitForGroups(3);
  t.same(r.groups[2], [5, 6]);
  r.open[2]();
  t.same(await Promise.all(rest), [50, 60]);
});

t.test('a statement in flight past stalledMs: the writes waiting for it go in a statement of their own', async (t) => {
  const r = recorder();
  const w = new GroupWriter(r.write, { maxInflight: 4, maxBatch: 64, groupFirst: true, stalledMs: 20 });
  const stuck = w.submit(0);
  await r.waitForGroups(1);
  const later = [1, 2].map((i) => w.submit(i));
  // Without the stall check they would wait for the first statement, which the test never ends here.
  await r.waitForGroups(2);
  t.same(r.groups[1], [1, 2], 'the waiting writes went together, beside the stalled statement');
  r.open[1]();
  t.same(await Promise.all(later), [10, 20], 'and were answered while the first is still out');
  t.equal(w.stats.stalls, 1, 'counted once as a stall (/metrics: payment_write_stalls_total)');
  r.open[0]();
  t.same(await stuck, 0);
});

/** An error as pg reports a statement that waited past lock_timeout. */
const lockTimeout = () => Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' });
const timedOut = (err: unknown) => (err as { code?: string }).code === '55P03';

t.test('a lock timeout: the rows not held go again together at once, the held one alone', async (t) => {
  const groups: number[][] = [];
  let held = new Set([3]);
  const w = new GroupWriter(async (items: number[]) => {
    groups.push(items);
    if (items.some((i) => held.has(i))) throw lockTimeout();
    return items.map((i) => i * 10);
  }, { groupFirst: true, stalledMs: 0, ambiguous: () => false, lockWait: { timedOut, held: async (items) => items.map((i) => held.has(i)) } });
  const out = await Promise.allSettled([1, 2, 3, 4, 5].map((i) => w.submit(i)));
  t.same(out.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as { code: string }).code)), [10, 20, '55P03', 40, 50], 'only the held row fails, with the lock timeout');
  t.same(groups, [[1, 2, 3, 4, 5], [1, 2, 4, 5], [3]], 'no halving: the free rows in one statement, the held row alone');
  t.equal(w.stats.lockTimeouts, 2, 'both timeouts counted (/metrics: payment_write_lock_timeouts_total)');
  held = new Set();
});

t.test('a lock timeout with none of its rows held (the lock is elsewhere): every write fails at once, nothing is sent again', async (t) => {
  const groups: number[][] = [];
  const w = new GroupWriter(async (items: number[]) => { groups.push(items); throw lockTimeout(); },
    { groupFirst: true, stalledMs: 0, ambiguous: () => false, lockWait: { timedOut, held: async (items) => items.map(() => false) } });
  const out = await Promise.allSettled([1, 2, 3, 4].map((i) => w.submit(i)));
  t.ok(out.every((o) => o.status === 'rejected' && (o.reason as { code: string }).code === '55P03'), 'each write gets the lock timeout');
  t.same(groups, [[1, 2, 3, 4]], 'one statement: not halved, not retried');
  // Without `held` the same: the writer cannot tell which row waited.
  const alone = new GroupWriter(async (items: number[]) => { groups.push(items); throw lockTimeout(); },
    { groupFirst: true, stalledMs: 0, ambiguous: () => false, lockWait: { timedOut } });
  await Promise.allSettled([5, 6].map((i) => alone.submit(i)));
  t.same(groups.slice(1), [[5, 6]]);
});

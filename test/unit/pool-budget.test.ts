// PG_POOL_MAX is split so that the pools of one process never add up to more than it.
import t from 'tap';
import { minPoolMax, splitPoolBudget } from '../../src/store/pool-budget.js';

t.test('the split never exceeds PG_POOL_MAX and gives every pool at least its minimum', async (t) => {
  let checked = 0;
  for (const dispatch of [true, false]) {
    for (let workers = 1; workers <= 16; workers++) {
      for (let max = minPoolMax(workers, dispatch); max <= 200; max++) {
        const b = splitPoolBudget(max, workers, dispatch);
        const total = b.front + workers * (b.worker + b.bank + b.hooks) + b.listen;
        if (total !== b.total || total > max || b.front < 2 || b.worker < 1 || b.bank > 1 || (b.bank === 0 && b.worker > 1) || (dispatch ? b.hooks < 1 || b.listen !== 1 : b.hooks !== 0 || b.listen !== 0)) {
          t.fail(`max ${max}, workers ${workers}, dispatch ${dispatch}: ${JSON.stringify(b)}`);
        }
        checked++;
      }
    }
  }
  t.ok(checked > 5000, `${checked} combinations`);
});

t.test('the default leaves room for four replicas under max_connections 100', async (t) => {
  t.same(splitPoolBudget(20, 2, true), { front: 8, worker: 3, bank: 1, hooks: 1, listen: 1, total: 19 });
  t.match(splitPoolBudget(7, 2, true), { worker: 1, bank: 0 }, 'the smallest budget: the bank shares the actors\' connection');
  t.ok(4 * 20 <= 97);
});

t.test('a budget too small for the workers is refused with a clear message', async (t) => {
  t.throws(() => splitPoolBudget(4, 2, true), /PG_POOL_MAX=4 is too small for WORKERS=2: it needs at least 7/);
});

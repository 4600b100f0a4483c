// The worker threads' V8 heap settings (WORKER_YOUNG_GENERATION_MB, WORKER_OLD_GENERATION_MB) reach
// the threads, and a worker that runs out of its heap is one dead worker: its in-flight command
// answers outcome_unknown, the shard is restarted and answers again, the process goes on. No
// database is needed (the fixture's commands never query).
import t from 'tap';
import type { Dispatcher } from '../../actors/dispatcher.js';
import { fixtureDispatcher } from '../helpers/fixture-dispatcher.js';
import { until } from '../helpers/wait.js';

const ID = 'EXZ-20261123-0000000000';

function dispatcher(resourceLimits: { maxYoungGenerationSizeMb?: number; maxOldGenerationSizeMb?: number }) {
  const d = fixtureDispatcher('oom-worker.js', { inflightLimit: 100, deadlineMs: 60_000, resourceLimits, appName: 'pe:heap-test' });

  t.teardown(() => d.close());
  return d;
}

/** The worker's heap gauges, asked until a worker that is still starting (a busy machine) answers. */
const heap = async (d: Dispatcher) => {
  let series: { labels: Record<string, unknown>; value: number }[] = [];
  await until('the worker reports its heap', async () => {
    const [s] = await d.stats(5000, true);
    series = (s?.metrics?.find((m) => m.name === 'worker_heap_bytes')?.values ?? []) as typeof series;
    return series.length > 0;
  }, 60_000);
  return Object.fromEntries(series.map((v) => [String(v.labels.state), v.value]));
};

t.test('the configured limits reach the worker; 0 leaves V8\'s defaults', async (t) => {
  const limited = await heap(dispatcher({ maxYoungGenerationSizeMb: 24, maxOldGenerationSizeMb: 128 }));
  t.ok(limited.limit >= 128 * 2 ** 20 && limited.limit < 256 * 2 ** 20, `heap limit from maxOldGenerationSizeMb (${limited.limit})`);
  t.ok(limited.young > 0 && limited.young <= 16 * 2 ** 20, `young generation within two 8 MB semi-spaces (${limited.young})`);
  const defaults = await heap(dispatcher({ maxYoungGenerationSizeMb: 0, maxOldGenerationSizeMb: 0 }));
  t.ok(defaults.limit > limited.limit, `V8's default limit is larger (${defaults.limit})`);
});

t.test('a worker out of heap: outcome_unknown for its command, then the restarted shard answers', async (t) => {
  const d = dispatcher({ maxOldGenerationSizeMb: 64 });
  const died = await d.send({ kind: 'payment.apply', id: ID, command: { type: 'expire' } });
  t.match(died, { ok: false, failure: { code: 'outcome_unknown' } });
  // While the shard restarts its commands get 503 service_unavailable; then the new worker answers.
  await until('the restarted worker answers', async () => {
    const r = await d.send({ kind: 'payment.apply', id: ID, command: { type: 'cancel' } });
    return !r.ok && r.failure.code === 'payment_not_found';
  });
  t.same(d.alive(), [true]);
});

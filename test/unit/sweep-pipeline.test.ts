// The pipelined sweep (actors/sweep-pipeline.ts): the next batch is claimed while earlier items are
// still in flight, never more than the cap in flight, the run ends on a short claim or when stopped,
// and it resolves only after every claimed item has finished (also when a claim or an item fails).
import t from 'tap';
import { runPipeline } from '../../actors/sweep-pipeline.js';

/** A queue of due items, handing out at most `limit` per claim, and a gate that items wait on. */
function source(n: number) {
  let next = 0;
  const claims: number[] = [];
  return {
    claims,
    claim: async (limit: number) => {
      claims.push(limit);
      const ids = Array.from({ length: Math.max(0, Math.min(limit, n - next)) }, (_, i) => next + i);
      next += ids.length;
      return ids;
    },
  };
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => { open = r; });
  return { open, opened };
}

t.test('the next batch is claimed while the first is still in flight, within the cap', async (t) => {
  const src = source(1000);
  const release = gate();
  let inflight = 0;
  let peak = 0;
  const done: number[] = [];
  const run = runPipeline({
    batch: 100, cap: 300, claim: src.claim, stopped: () => false,
    apply: async (id) => {
      inflight++; peak = Math.max(peak, inflight);
      // Nothing finishes until three batches are out: a sweep that waited for each batch to finish
      // before claiming the next would never get there (the test's own deadline ends it).
      if (src.claims.length < 3) await release.opened;
      else release.open();
      inflight--;
      done.push(id);
    },
  });
  t.equal(await run, 1000, 'every due item was claimed in one run');
  t.equal(done.length, 1000, 'and every one finished before the run resolved');
  t.equal(new Set(done).size, 1000, 'each once');
  t.ok(peak <= 300, `never more than the cap in flight (peak ${peak})`);
  t.ok(src.claims.every((l) => l <= 100), 'no claim larger than a batch');
  t.equal(src.claims.length, 11, 'claimed until a claim came back short (the eleventh, empty)');
});

t.test('a short claim ends the run; stopped ends it before the next claim, after in-flight work', async (t) => {
  const short = source(150);
  t.equal(await runPipeline({ batch: 100, cap: 300, claim: short.claim, stopped: () => false, apply: async () => {} }), 150);
  t.same(short.claims, [100, 100], 'a short claim (50 of 100) is the last of the run');

  const src = source(1000);
  let stopped = false;
  let finished = 0;
  const release = gate();
  const run = runPipeline({
    batch: 100, cap: 200, claim: src.claim, stopped: () => stopped,
    apply: async () => { await release.opened; finished++; },
  });
  // Two batches are in flight (the cap): stop, then let them finish.
  while (src.claims.length < 2) await new Promise((r) => setImmediate(r));
  stopped = true;
  let resolved = false;
  void run.then(() => { resolved = true; });
  await new Promise((r) => setImmediate(r));
  t.notOk(resolved, 'the run waits for its in-flight items');
  release.open();
  t.equal(await run, 200);
  t.equal(finished, 200, 'every claimed item finished before the run resolved');
  t.equal(src.claims.length, 2, 'no claim after stop');
});

t.test('a failing item or claim stops further claims and is raised after in-flight work is done', async (t) => {
  const src = source(1000);
  let finished = 0;
  await t.rejects(runPipeline({
    batch: 100, cap: 300, claim: src.claim, stopped: () => false,
    apply: async (id) => { await new Promise((r) => setImmediate(r)); finished++; if (id === 5) throw new Error('item 5 failed'); },
  }), /item 5 failed/);
  t.equal(finished, src.claims.reduce((a, b) => a + b, 0), 'every claimed item finished first');
  t.ok(src.claims.length <= 4, 'claims stopped soon after the failure');

  let calls = 0;
  let inflightAtThrow = -1;
  let running = 0;
  await t.rejects(runPipeline({
    batch: 100, cap: 300, stopped: () => false,
    claim: async (limit) => {
      if (++calls === 2) { inflightAtThrow = running; throw new Error('claim failed'); }
      return Array.from({ length: limit }, (_, i) => i);
    },
    apply: async () => { running++; await new Promise((r) => setImmediate(r)); running--; },
  }), /claim failed/);
  t.ok(inflightAtThrow > 0, 'items were in flight when the claim failed');
  t.equal(running, 0, 'and had finished when the failure was raised');
});

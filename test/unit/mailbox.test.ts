// The keyed mailbox: strict order per id, interleaving across ids, bounded depth overall and per id.
import t from 'tap';
import { KeyedMailbox } from '../../actors/mailbox.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('one job at a time per id, in arrival order', async (t) => {
  const mb = new KeyedMailbox(1000);
  const log: string[] = [];
  let running = 0;
  let maxRunning = 0;
  for (let i = 0; i < 20; i++) {
    mb.push('a', async () => {
      running++; maxRunning = Math.max(maxRunning, running);
      log.push(`start ${i}`);
      await tick(Math.random() * 3);
      log.push(`end ${i}`);
      running--;
    });
  }
  await mb.idle();
  t.equal(maxRunning, 1);
  t.same(log, Array.from({ length: 20 }, (_, i) => [`start ${i}`, `end ${i}`]).flat());
});

t.test('different ids run concurrently', async (t) => {
  const mb = new KeyedMailbox(1000);
  let running = 0;
  let maxRunning = 0;
  for (const id of ['a', 'b', 'c', 'd']) {
    mb.push(id, async () => { running++; maxRunning = Math.max(maxRunning, running); await tick(10); running--; });
  }
  await mb.idle();
  t.equal(maxRunning, 4);
  t.equal(mb.activeIds, 0, 'queues are dropped when empty');
});

t.test('a failing job does not stop the queue', async (t) => {
  const mb = new KeyedMailbox(10);
  const done: number[] = [];
  mb.push('x', async () => { throw new Error('boom'); });
  mb.push('x', async () => { done.push(2); });
  await mb.idle();
  t.same(done, [2]);
});

t.test('a full mailbox refuses', async (t) => {
  const mb = new KeyedMailbox(3);
  const results = Array.from({ length: 5 }, (_, i) => mb.push(`id${i}`, async () => { await tick(5); }));
  t.same(results, ['queued', 'queued', 'queued', 'full', 'full']);
  t.equal(mb.depth, 3);
  await mb.idle();
  t.equal(mb.depth, 0);
  t.equal(mb.push('again', async () => {}), 'queued');
});

t.test('one hot id is bounded on its own and leaves the rest of the budget to other ids', async (t) => {
  const mb = new KeyedMailbox(100, 4);
  const hot = Array.from({ length: 10 }, () => mb.push('hot', async () => { await tick(5); }));
  t.same(hot, ['queued', 'queued', 'queued', 'queued', 'id_full', 'id_full', 'id_full', 'id_full', 'id_full', 'id_full']);
  const others = Array.from({ length: 20 }, (_, i) => mb.push(`other${i}`, async () => {}));
  t.ok(others.every((r) => r === 'queued'), 'other ids still get in');
  await mb.idle();
  t.equal(mb.push('hot', async () => {}), 'queued', 'the hot id is admitted again once its queue drains');
});

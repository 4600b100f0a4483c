// Actor-to-actor messages: asks travel through the main thread to the owner's shard and come back
// as replies; the asks one actor sends another arrive in the order it sent them, across shards.
import t from 'tap';
import { fixtureDispatcher } from '../helpers/fixture-dispatcher.js';
import { shardOf } from '../../src/domain/ids.js';

const dispatcher = fixtureDispatcher('ask-worker.js', { workers: 2, appName: 'pe:ask-test' });
t.teardown(() => dispatcher.close());

t.test('ten asks from one actor arrive in the order sent, on the same and on another shard', async (t) => {
  // Senders are named after their target: "from-" and "fro-" prefixes land on different shards.
  const senders = Array.from({ length: 8 }, (_, i) => [`from-to-${i}`, `fro-to-${i + 8}`]).flat();
  const target = (s: string) => s.slice(s.indexOf('-') + 1);
  t.ok(senders.some((s) => shardOf(s, 2) !== shardOf(target(s), 2)), 'some pairs cross shards');
  t.ok(senders.some((s) => shardOf(s, 2) === shardOf(target(s), 2)), 'some pairs share a shard');
  const replies = await Promise.all(senders.map((id) => dispatcher.send({ kind: 'payment.apply', id, command: { type: 'expire' } })));
  for (const r of replies) {
    t.equal(r.ok, true);
    if (r.ok) t.same(r.payment, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  }
});

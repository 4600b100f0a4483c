// Actor-to-actor messages: asks travel through the main thread to the owner's shard and come back
// as replies; the asks one actor sends another arrive in the order it sent them, across shards.
import t from 'tap';
import { fileURLToPath } from 'node:url';
import { Dispatcher } from '../../actors/dispatcher.js';
import { createLogger } from '../../src/log.js';
import { shardOf } from '../../src/domain/ids.js';

const dispatcher = new Dispatcher({
  workers: 2, inflightLimit: 1000, log: createLogger('silent'),
  workerFile: fileURLToPath(new URL('../fixtures/ask-worker.js', import.meta.url)),
  init: {
    // Never connected: the fixture's handlers make no query and webhook dispatch is off.
    databaseUrl: 'postgres://nobody@127.0.0.1:1/none', poolSize: 1, hooksPoolSize: 1, appName: 'pe:ask-test',
    dbTimeouts: { statementMs: 1000, queryMs: 1000, connectMs: 1000, keepAliveMs: 0 }, mailboxLimit: 1000, mailboxPerIdLimit: 100, logLevel: 'silent',
    publicBaseUrl: 'http://x.test', connectorTimeoutMs: 1000, authorizationWindowSeconds: 60,
    webhooks: { dispatch: false, allowPrivate: false, timeoutMs: 1000, pollMs: 1000, leaseMs: 1000, concurrency: 1, perEndpoint: 1 },
  },
});
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

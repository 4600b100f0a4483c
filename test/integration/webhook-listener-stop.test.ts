// The LISTEN connection's stop: a notification that arrives while the connection is being ended
// (after the channel to the workers is closed) is dropped, not posted to the closed channel (which
// threw InvalidStateError from the client's event handler: an uncaught exception that ended a CI
// run, 2026-12-02). Each round notifies and stops in the same turn, so that the notification is
// read while stop() runs.
import t from 'tap';
import pg from 'pg';
import { startTestServer } from '../helpers/server.js';
import { PG_CHANNEL, startDueListener } from '../../actors/webhook-wakeup.js';
import { DEFAULT_TIMEOUTS } from '../../src/store/db.js';
import { createLogger } from '../../src/log.js';

const s = await startTestServer(t);

t.test('notifications racing stop() are dropped quietly', async (t) => {
  const notifier = new pg.Client({ connectionString: s.srv.databaseUrl });
  await notifier.connect();
  t.teardown(() => notifier.end());
  const uncaught: Error[] = [];
  const onUncaught = (err: Error) => { uncaught.push(err); };
  process.on('uncaughtException', onUncaught);
  t.teardown(() => { process.off('uncaughtException', onUncaught); });
  for (let round = 0; round < 10; round++) {
    const l = startDueListener({ connectionString: s.srv.databaseUrl, name: 'pe:test:listen', timeouts: DEFAULT_TIMEOUTS, pingMs: 60_000, log: createLogger('silent') });
    await l.ready();
    await notifier.query(`NOTIFY ${PG_CHANNEL}`);
    await l.stop();
  }
  await new Promise((r) => setImmediate(r)); // a handler already due runs before the check
  t.same(uncaught.map((e) => `${e.name}: ${e.message}`), [], 'no uncaught exception');
});

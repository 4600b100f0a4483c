// Webhook dispatchers wake on Postgres LISTEN/NOTIFY: a delivery queued by another connection (here
// the test's own, as another process would) is attempted at once although the poll is 30 s, and
// the LISTEN connection comes back by itself after it is killed.
import t from 'tap';
import { testPool } from '../helpers/env.js';
import { insertEventWithDelivery, upsertSettings } from '../../src/store/webhooks-repo.js';
import { startTestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';

const s = await startTestServer(t, { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '30000' });
const other = testPool(s.srv.databaseUrl, 2);
t.teardown(() => other.end());
const LISTEN_APP = `pe:${process.pid}:listen`;

const listener = async () => (await other.query(
  "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query ILIKE 'LISTEN%'", [LISTEN_APP])).rows.map((r) => r.pid as number);
async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('a delivery queued elsewhere is attempted promptly, before and after the LISTEN connection drops', async (t) => {
  const rx = await startReceiver(() => ({ status: 200 }));
  t.teardown(() => rx.close());
  const m = await s.merchant();
  const { settings } = await upsertSettings(other, { merchantId: m.id, api: 'merchant', channelId: null, url: rx.url, events: null });
  const queue = () => insertEventWithDelivery(other, {
    merchantId: m.id, livemode: false, api: 'merchant', type: 'test.ping', aggregateId: settings.id, data: { object: 'test' }, settingsId: settings.id,
  });
  const [pid] = await waitFor('the LISTEN connection', async () => { const p = await listener(); return p.length ? p : null; });

  const first = await queue();
  const got = await rx.waitFor(1, 10_000);
  t.equal(got.length, 1, 'attempted without waiting for the 30 s poll');
  t.equal(got[0].headers['x-svc-event-id'], first.eventId);

  // The LISTEN connection is killed; the process reconnects (with backoff) and listens again.
  await other.query('SELECT pg_terminate_backend($1)', [pid]);
  await waitFor('a new LISTEN connection', async () => { const p = await listener(); return p.length && !p.includes(pid) ? p : null; });
  const second = await queue();
  const after = await rx.waitFor(2, 10_000);
  t.equal(after.length, 2, 'attempted promptly after the reconnect');
  t.equal(after[1].headers['x-svc-event-id'], second.eventId);
  t.equal((await listener()).length, 1, 'one LISTEN connection per process');
});

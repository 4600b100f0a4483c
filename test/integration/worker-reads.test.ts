// Reads answered on a worker thread (actors/reads.ts) fail as data, never as a hang: Postgres
// refusing the connection is 503 service_unavailable; a Postgres that accepts and never answers is
// 503 at the read's deadline; a worker that dies with reads in flight answers them 503
// service_unavailable (a read changed nothing, so never outcome_unknown); a malformed id is "not
// found" without a query. No database of ours is needed: the targets are closed or silent sockets.
import t from 'tap';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { Dispatcher } from '../../actors/dispatcher.js';
import { createLogger } from '../../src/log.js';

const silent = net.createServer(() => { /* accepts and never answers */ });
await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
const silentPort = (silent.address() as net.AddressInfo).port;
const sockets = new Set<net.Socket>();
silent.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
t.teardown(() => { for (const s of sockets) s.destroy(); silent.close(); });

function dispatcher(databaseUrl: string, deadlineMs: number, fixture?: string) {
  const d = new Dispatcher({
    workers: 1, inflightLimit: 1000, log: createLogger('silent'), deadlineMs,
    ...(fixture ? { workerFile: fileURLToPath(new URL(`../fixtures/${fixture}`, import.meta.url)) } : {}),
    init: {
      databaseUrl, poolSize: 2, hooksPoolSize: 1, appName: 'pe:reads-test',
      dbTimeouts: { statementMs: 5000, queryMs: 5000, connectMs: 5000, keepAliveMs: 0 }, mailboxLimit: 1000, mailboxPerIdLimit: 100, logLevel: 'silent',
      publicBaseUrl: 'http://x.test', connectorTimeoutMs: 1000, authorizationWindowSeconds: 604800,
      webhooks: { dispatch: false, allowPrivate: false, timeoutMs: 1000, pollMs: 1000, leaseMs: 1000, concurrency: 1, perEndpoint: 1 },
    },
  });
  t.teardown(() => d.close());
  return d;
}
const read = (id: string) => ({ kind: 'merchant.payment' as const, id, merchantId: 'm_1', livemode: false, requestId: 'req_1' });
const ID = 'EXZ-20261123-0000000000';

t.test('Postgres refusing connections: 503 service_unavailable; a malformed id: not found, no query', async (t) => {
  const d = dispatcher('postgres://nobody@127.0.0.1:1/none', 10_000);
  const r = await d.read(read(ID));
  t.match(r, { ok: false, failure: { code: 'service_unavailable', retryAfterSeconds: 1 } });
  t.same(await d.read(read('not an id \u0000')), { ok: true, body: null });
});

t.test('Postgres silent: 503 at the deadline, never a hang', async (t) => {
  const d = dispatcher(`postgres://nobody@127.0.0.1:${silentPort}/none`, 300);
  const r = await d.read(read(ID));
  t.match(r, { ok: false, failure: { code: 'deadline_exceeded' } });
});

t.test('a worker dying with reads in flight answers them 503 service_unavailable', async (t) => {
  const d = dispatcher(`postgres://nobody@127.0.0.1:${silentPort}/none`, 30_000, 'die-worker.js');
  const pending = [d.read(read(ID)), d.read(read('EXZ-20261123-0000000001'))];
  await new Promise((r) => setTimeout(r, 50)); // the reads reach the worker and wait on the silent Postgres
  const death = d.send({ kind: 'payment.apply', id: ID, command: { type: 'expire' } });
  const replies = await Promise.all(pending);
  for (const r of replies) t.match(r, { ok: false, failure: { code: 'service_unavailable' } });
  t.match(await death, { ok: false, failure: { code: 'outcome_unknown' } }, 'the command itself: outcome unknown');
});

// A Redis outage is logged once, with its cause, however many times the client retries meanwhile;
// the next outage (after the client was ready again) is logged again. The test runs its own
// redis-server on a free port and kills it; the machine's Redis is never touched.
import t from 'tap';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { RedisKeyValue } from '../../src/store/kv-redis.js';
import { freePort } from '../../src/store/embedded.js';
import { until } from '../helpers/wait.js';

const missing = spawnSync('redis-server', ['--version']).status === 0 ? false : 'needs the redis-server program (apt-get install -y redis-server): the test stops its own Redis';

function startRedis(port: number): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], { stdio: 'ignore' });
}

const listening = (port: number): Promise<boolean> => new Promise((resolve) => {
  const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
  s.on('error', () => resolve(false));
});

t.test('one warning per outage, with its cause', { skip: missing }, async (t) => {
  const port = await freePort();
  let redis = startRedis(port);
  t.teardown(() => { redis.kill('SIGKILL'); });
  await until('redis-server listens', () => listening(port), 15_000);
  const errors: Error[] = [];
  const kv = new RedisKeyValue(`redis://127.0.0.1:${port}`, 'outage:', { onConnectionError: (err) => errors.push(err) });
  t.teardown(() => kv.close());
  // The client's own events, to wait on its retries rather than on time.
  const client = (kv as unknown as { client: NodeJS.EventEmitter & { status: string } }).client;
  let retries = 0;
  client.on('reconnecting', () => { retries++; });
  await until('the client is ready', () => client.status === 'ready', 15_000);
  t.equal(errors.length, 0, 'nothing to report while Redis answers');

  redis.kill('SIGKILL');
  await until('the client retried three times', () => retries >= 3, 30_000);
  t.equal(errors.length, 1, 'the outage is reported once, not at each retry');
  t.match(errors[0].message, /ECONNREFUSED|ECONNRESET|closed/, 'with its cause');

  redis = startRedis(port);
  await until('the client is ready again', () => client.status === 'ready', 30_000);
  t.equal(errors.length, 1, 'nothing new while it answers again');
  redis.kill('SIGKILL');
  const before = retries;
  await until('the client retried again', () => retries >= before + 2, 30_000);
  t.equal(errors.length, 2, 'the next outage is reported once more');
});

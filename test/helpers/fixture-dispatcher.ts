// A Dispatcher running a fixture worker (test/fixtures/) whose commands never reach a database:
// the init points at a closed port and webhook dispatch is off.
import { fileURLToPath } from 'node:url';
import { Dispatcher, type DispatcherOptions } from '../../actors/dispatcher.js';
import { createLogger } from '../../src/log.js';

export function fixtureDispatcher(fixture: string, opts: Partial<Omit<DispatcherOptions, 'init' | 'workerFile' | 'log'>> & { appName?: string } = {}): Dispatcher {
  const { appName = 'pe:fixture-test', ...rest } = opts;
  return new Dispatcher({
    workers: 1, inflightLimit: 1000, log: createLogger('silent'), ...rest,
    workerFile: fileURLToPath(new URL(`../fixtures/${fixture}`, import.meta.url)),
    init: {
      databaseUrl: 'postgres://nobody@127.0.0.1:1/none', poolSize: 1, bankPoolSize: 0, hooksPoolSize: 1, appName,
      dbTimeouts: { statementMs: 1000, lockMs: 0, queryMs: 1000, connectMs: 1000, keepAliveMs: 0 }, mailboxLimit: 1000, mailboxPerIdLimit: 100, logLevel: 'silent',
      publicBaseUrl: 'http://x.test', connectorTimeoutMs: 1000, authorizationWindowSeconds: 604800,
      webhooks: { dispatch: false, allowPrivate: false, timeoutMs: 1000, pollMs: 1000, leaseMs: 1000, concurrency: 1, perEndpoint: 1, perEndpointMax: 1, endpointFastMs: 1000 },
    },
  });
}

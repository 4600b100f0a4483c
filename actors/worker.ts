// Worker-thread entry. Piscina runs one long-lived task per shard: it receives a MessagePort and
// serves the engine's commands on it (shard.ts) until told to drain.
import type { MessagePort } from 'node:worker_threads';
import { handlers } from './handlers.js';
import { serveShard } from './shard.js';
import type { WorkerInit } from './protocol.js';

export default function runShard({ port, init }: { port: MessagePort; init: WorkerInit }): Promise<string> {
  return serveShard(port, init, handlers);
}

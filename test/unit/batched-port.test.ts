// Messages between threads travel in batches: what is posted in one turn of the event loop arrives
// as one message, in order, and order holds across batches.
import t from 'tap';
import { MessageChannel } from 'node:worker_threads';
import { BatchedPort, onBatch } from '../../actors/batched-port.js';
import { until } from '../helpers/wait.js';

t.test('one turn, one postMessage; order kept within and across batches', async (t) => {
  const { port1, port2 } = new MessageChannel();
  const raw: unknown[][] = [];
  port2.on('message', (b: unknown[]) => raw.push(b));
  const got: number[] = [];
  const { port1: a, port2: b } = new MessageChannel();
  onBatch<number>(b, (n) => got.push(n));
  const out = new BatchedPort<number>(port1);
  const out2 = new BatchedPort<number>(a);
  for (let i = 0; i < 5; i++) { out.post(i); out2.post(i); }
  await new Promise((r) => setImmediate(r));
  for (let i = 5; i < 8; i++) { out.post(i); out2.post(i); }
  // Waits for what arrived, not for a fixed time: a busy machine delivers late.
  await until('both ports delivered', () => raw.flat().length === 8 && got.length === 8);
  t.same(raw, [[0, 1, 2, 3, 4], [5, 6, 7]], 'two turns, two messages');
  t.same(got, [0, 1, 2, 3, 4, 5, 6, 7], 'handled one by one, in order');
  out.flush();
  // A message posted after the flush is the next to arrive: the flush itself sent nothing.
  await new Promise((r) => setImmediate(r));
  out.post(99);
  await until('the message after the flush', () => raw.length >= 3);
  t.same(raw, [[0, 1, 2, 3, 4], [5, 6, 7], [99]], 'nothing queued: flush sends nothing');
  for (const p of [port1, port2, a, b]) p.close();
});

// Main-thread side of the actor runtime. Places each aggregate id on a shard
// (hash(id) % WORKERS), one Piscina pool of one thread per shard running a long-lived task fed
// through a MessagePort, and correlates replies. The main thread never writes aggregate state.
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { shardOf } from '../src/domain/ids.js';
import { fail } from '../src/errors.js';
import type { Logger } from '../src/log.js';
import type { Payment } from '../src/domain/payment.js';
import { BatchedPort, onBatch } from './batched-port.js';
import { mailboxOf, type Command, type FromWorker, type Reply, type ReplyTo, type ToWorker, type WorkerInit, type WorkerStats } from './protocol.js';

const WORKER_FILE = fileURLToPath(new URL('./worker.js', import.meta.url));

interface Shard {
  index: number;
  pool: Piscina;
  port: MessagePort;
  out: BatchedPort<ToWorker>;
  pending: Map<number, (m: FromWorker) => void>;
  task: Promise<unknown>;
  alive: boolean;
}

export interface DispatcherOptions {
  workers: number;
  /** The worker entry (tests pass a fixture with tiny handlers); the engine's by default. */
  workerFile?: string;
  init: Omit<WorkerInit, 'shard'>;
  /** Commands in flight per shard beyond which new ones are refused (503). */
  inflightLimit: number;
  log: Logger;
  /**
   * How long a caller waits for an actor's reply (ms); then it gets 503 deadline_exceeded. The
   * command is not withdrawn: the actor finishes it, and its late reply is logged and dropped.
   */
  deadlineMs?: number;
  /**
   * V8 heap limits of each shard worker (Piscina's `resourceLimits`, in MB; 0 or absent: V8's
   * default). The young generation is three semi-spaces: 12 MB means 4 MB semi-spaces.
   */
  resourceLimits?: { maxYoungGenerationSizeMb?: number; maxOldGenerationSizeMb?: number };
  /** Node options of the shard workers (Piscina's `execArgv`); absent: the process's own. */
  execArgv?: string[];
}

export class Dispatcher {
  private readonly shards: Shard[] = [];
  private rid = 0;
  private closing = false;

  constructor(private readonly opts: DispatcherOptions) {
    for (let i = 0; i < opts.workers; i++) this.shards.push(this.startShard(i));
  }

  get size(): number { return this.shards.length; }

  private resourceLimits(): { maxYoungGenerationSizeMb?: number; maxOldGenerationSizeMb?: number } {
    const r = this.opts.resourceLimits ?? {};
    return {
      ...(r.maxYoungGenerationSizeMb ? { maxYoungGenerationSizeMb: r.maxYoungGenerationSizeMb } : {}),
      ...(r.maxOldGenerationSizeMb ? { maxOldGenerationSizeMb: r.maxOldGenerationSizeMb } : {}),
    };
  }

  private startShard(index: number, pool?: Piscina): Shard {
    pool ??= new Piscina({
      filename: this.opts.workerFile ?? WORKER_FILE, minThreads: 1, maxThreads: 1, idleTimeout: Infinity, atomics: 'disabled', concurrentTasksPerWorker: 1,
      resourceLimits: this.resourceLimits(), ...(this.opts.execArgv ? { execArgv: this.opts.execArgv } : {}),
    });
    const { port1, port2 } = new MessageChannel();
    const pending = new Map<number, (m: FromWorker) => void>();
    const shard: Shard = { index, pool, port: port1, out: new BatchedPort<ToWorker>(port1), pending, task: Promise.resolve(), alive: true };
    onBatch<FromWorker>(port1, (m) => {
      if (m.t === 'ask') { this.route(shard, m.rid, m.cmd); return; }
      const done = pending.get(m.rid);
      if (done) { pending.delete(m.rid); done(m); }
    });
    shard.task = pool.run({ port: port2, init: { ...this.opts.init, shard: index } }, { transferList: [port2] })
      .catch((err: Error) => {
        shard.alive = false;
        this.opts.log.error({ err, shard: index, inflight: pending.size }, 'actor worker died; its in-flight commands have unknown outcomes; restarting it');
        // Each may or may not have committed: the caller is told so, and a retry with the same
        // Idempotency-Key (or a status read) finds what did.
        for (const [rid, done] of pending) done({ t: 'reply', rid, reply: { ok: false, failure: { ...fail('outcome_unknown'), retryAfterSeconds: 1 } } });
        pending.clear();
        port1.close();
        if (!this.closing) this.shards[index] = this.startShard(index, pool);
      });
    return shard;
  }

  /**
   * Forwards a command one actor asks of another to the owner's shard and posts the reply back.
   * Asks from one actor reach the other in the order they were sent: the ports are FIFO, this
   * forwards synchronously, and the owner's mailbox is FIFO.
   */
  private route(from: Shard, rid: number, cmd: Command): void {
    void this.send(cmd).then((reply) => {
      if (from.alive) from.out.post({ t: 'answer', rid, reply });
    });
  }

  /** Sends a command to the actor owning `cmd.id` (or to its create's mailbox, see mailboxOf) and resolves with its reply. */
  send<C extends Command>(cmd: C): Promise<ReplyTo<C>> {
    return this.sendAny(cmd) as Promise<ReplyTo<C>>;
  }

  private sendAny(cmd: Command): Promise<Reply> {
    const shard = this.shards[shardOf(mailboxOf(cmd), this.shards.length)];
    if (this.closing || !shard.alive) return Promise.resolve({ ok: false, failure: { ...fail('service_unavailable'), retryAfterSeconds: 1 } });
    if (shard.pending.size >= this.opts.inflightLimit) {
      return Promise.resolve({ ok: false, failure: { ...fail('service_unavailable', null, 'actor mailbox full'), retryAfterSeconds: 1 } });
    }
    const rid = ++this.rid;
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let late = false;
      // The entry stays until the worker answers, so that in-flight counts stay true after a deadline.
      shard.pending.set(rid, (m) => {
        clearTimeout(timer);
        const reply = (m as Extract<FromWorker, { t: 'reply' }>).reply;
        if (late) {
          this.opts.log.warn({ shard: shard.index, kind: cmd.kind, id: cmd.id, ok: reply.ok }, 'actor reply after its deadline: dropped (the caller had 503)');
          return;
        }
        resolve(reply);
      });
      const ms = this.opts.deadlineMs;
      if (ms) {
        timer = setTimeout(() => {
          late = true;
          resolve({ ok: false, failure: { ...fail('deadline_exceeded', null, `${cmd.kind} after ${ms} ms`), retryAfterSeconds: 1 } });
        }, ms);
        timer.unref();
      }
      shard.out.post({ t: 'cmd', rid, cmd });
    });
  }

  /** Commands waiting for a reply, per shard (the worker queue depth seen from the main thread). */
  inflight(): number[] { return this.shards.map((s) => s.pending.size); }

  alive(): boolean[] { return this.shards.map((s) => s.alive); }

  /** Each shard's stats (null when it does not answer in time); with `metrics`, its registry too. */
  async stats(timeoutMs = 500, metrics = false): Promise<(WorkerStats | null)[]> {
    return Promise.all(this.shards.map((s) => new Promise<WorkerStats | null>((resolve) => {
      if (!s.alive) return resolve(null);
      const rid = ++this.rid;
      const t = setTimeout(() => { s.pending.delete(rid); resolve(null); }, timeoutMs);
      s.pending.set(rid, (m) => { clearTimeout(t); resolve((m as Extract<FromWorker, { t: 'stats' }>).stats); });
      s.out.post({ t: 'stats', rid, metrics } satisfies ToWorker);
    })));
  }

  /** Lets every queued command finish, then stops the workers. */
  async close(): Promise<void> {
    this.closing = true;
    for (const s of this.shards) if (s.alive) s.out.post({ t: 'drain' });
    await Promise.all(this.shards.map((s) => s.task.catch(() => {})));
    await Promise.all(this.shards.map((s) => s.pool.destroy().catch(() => {})));
  }
}

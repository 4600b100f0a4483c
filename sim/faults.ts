// The fault schedule, drawn from its own stream of the seed: SIGKILL of a server at a random moment
// or at a named failpoint (its Nth hit), a worker thread's death, table locks that exhaust the
// pools, the Postgres proxy stalling or dropping every connection, Redis flushed or stopped. One
// fault at a time, each undone before the next; `heal()` leaves everything running.
import type { History } from './history.js';
import { Rng } from './rng.js';
import { sleep } from './client.js';
import { until, type World } from './world.js';

export type FaultKind = 'kill' | 'failpoint-kill' | 'exit-thread' | 'lock-events' | 'lock-other' | 'proxy-stall' | 'proxy-drop' | 'redis-flush' | 'redis-stop';

const POINTS = ['after-attempt-recorded', 'after-connector-call', 'after-create-commit', 'after-idempotency-claim'] as const;

export const FAULT_WEIGHTS: readonly (readonly [number, FaultKind])[] = [
  [3, 'kill'], [3, 'failpoint-kill'], [1, 'exit-thread'], [6, 'lock-events'], [1, 'lock-other'],
  [2, 'proxy-stall'], [1, 'proxy-drop'], [1, 'redis-flush'], [1, 'redis-stop'],
];

export class Faults {
  readonly counts = new Map<FaultKind, number>();
  private readonly rng: Rng;

  constructor(seed: number, private readonly world: World, private readonly history: History) {
    this.rng = Rng.fork(seed, 'faults');
  }

  async loop(stop: () => boolean): Promise<void> {
    await sleep(this.rng.int(500, 1500));
    while (!stop()) {
      const kind = this.rng.weighted(FAULT_WEIGHTS);
      this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
      await this.inject(kind, stop);
      await sleep(this.rng.int(1000, 3000));
    }
  }

  private note(what: string) {
    this.history.fault(what);
  }

  private async restart(slot: number, failpoints = '') {
    for (let i = 0; i < 3; i++) {
      try {
        await this.world.startServer(slot, failpoints);
        return;
      } catch (err) {
        this.note(`server ${slot} restart failed (${(err as Error).message.split('\n')[0]}); again`);
        await this.world.kill(slot);
        await sleep(500);
      }
    }
    throw new Error(`server ${slot} does not restart`);
  }

  private async inject(kind: FaultKind, stop: () => boolean) {
    const slot = this.rng.int(0, 1);
    switch (kind) {
      case 'kill': {
        this.note(`SIGKILL server ${slot}`);
        await this.world.kill(slot);
        await sleep(this.rng.int(200, 1500));
        await this.restart(slot);
        this.note(`server ${slot} restarted`);
        return;
      }
      case 'failpoint-kill':
      case 'exit-thread': {
        const point = this.rng.pick(POINTS);
        const nth = this.rng.int(1, 4);
        const spec = `${point}:${kind === 'exit-thread' ? 'exit-thread' : 'kill'}@${nth}`;
        this.note(`server ${slot} restarted with FAILPOINTS=${spec}`);
        await this.world.kill(slot);
        await this.restart(slot, spec);
        if (kind === 'failpoint-kill') {
          // Dies at the Nth hit in one of its threads; past 8 s (or the run's end) it is killed by hand.
          const died = await until(() => !this.world.alive(slot) || stop(), 8_000, 100);
          this.note(died && !this.world.alive(slot) ? `server ${slot} died at ${spec}` : `server ${slot} did not reach ${spec}; SIGKILL`);
        } else {
          await until(() => stop(), this.rng.int(2000, 6000), 100);
        }
        await this.world.kill(slot);
        await this.restart(slot);
        this.note(`server ${slot} restarted without failpoints`);
        return;
      }
      case 'lock-events':
      case 'lock-other': {
        const table = kind === 'lock-events' ? 'events' : this.rng.pick(['refunds', 'payouts', 'connector_attempts', 'payments']);
        const ms = this.rng.int(kind === 'lock-events' ? 5000 : 2000, kind === 'lock-events' ? 9000 : 6000);
        this.note(`LOCK TABLE ${table} for ${ms} ms`);
        await this.world.lockTable(table, ms).catch((err) => this.note(`lock failed: ${(err as Error).message}`));
        this.note(`${table} unlocked`);
        return;
      }
      case 'proxy-stall': {
        const ms = this.rng.int(1000, 5000);
        this.note(`proxy stalls for ${ms} ms`);
        this.world.proxy.stall();
        await sleep(ms);
        this.world.proxy.resume();
        this.note('proxy resumed');
        return;
      }
      case 'proxy-drop': {
        this.note(`proxy drops ${this.world.proxy.connections} connections`);
        this.world.proxy.dropAll();
        return;
      }
      case 'redis-flush': {
        this.note('redis FLUSHALL');
        await this.world.flushRedis();
        return;
      }
      case 'redis-stop': {
        const ms = this.rng.int(1000, 4000);
        this.note(`redis stopped for ${ms} ms`);
        await this.world.stopRedis();
        await sleep(ms);
        await this.world.startRedis();
        this.note('redis restarted');
        return;
      }
    }
  }

  /** Everything running and forwarding again. */
  async heal(): Promise<void> {
    this.world.proxy.resume();
    if (!this.world.redisRunning()) await this.world.startRedis();
    for (const s of this.world.servers) {
      if (s.failpoints || !this.world.alive(s.slot)) {
        await this.world.kill(s.slot);
        await this.restart(s.slot);
      }
    }
  }
}

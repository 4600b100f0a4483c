// Knows whether this process is the only live writer, so that reads may be served from memory
// (DESIGN invariant 7) and fall back to Postgres the moment it is not.
//
// Protocol: every process registers in `instances` and bumps a cluster epoch at start, then waits
// until every other live process has acknowledged that epoch before it serves anything. A process
// heartbeats every HEARTBEAT_MS; when it sees a newer epoch it first stops trusting its memory and
// only then acknowledges. It trusts its memory only while alone and for half a lease after the
// start of its last successful heartbeat, so a process cut off from Postgres stops trusting it
// before the others consider it gone.
import type pg from 'pg';
import { prefixedId } from './domain/ids.js';
import type { Logger } from './log.js';
import { acknowledgeEpoch, deregisterInstance, heartbeat, pruneInstances, registerInstance } from './store/instances-repo.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Membership {
  readonly id = prefixedId('inst', 12);
  /** Bumps whenever trust in memory is lost or regained: cached reads from before are void. */
  generation = 0;
  private epochSeen = 0;
  private aloneFlag = false;
  private trustedUntil = 0;
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;

  constructor(private readonly db: pg.Pool, private readonly leaseMs: number, private readonly heartbeatMs: number, private readonly log: Logger) {}

  alone(): boolean { return this.aloneFlag && performance.now() < this.trustedUntil; }

  async join(): Promise<void> {
    await pruneInstances(this.db);
    const epoch = await registerInstance(this.db, this.id);
    await acknowledgeEpoch(this.db, this.id, epoch);
    this.epochSeen = epoch;
    const deadline = Date.now() + this.leaseMs * 10;
    for (;;) {
      const b = await heartbeat(this.db, this.id, this.leaseMs, epoch);
      if (b.unacked === 0) break;
      if (Date.now() > deadline) throw new Error('other processes did not acknowledge this one in time');
      await sleep(Math.max(10, this.heartbeatMs / 4));
    }
    await this.beat();
    this.timer = setInterval(() => { this.beating ??= this.beat().finally(() => { this.beating = null; }); }, this.heartbeatMs);
    this.timer.unref();
  }

  private setAlone(v: boolean): void {
    if (v === this.aloneFlag) return;
    this.aloneFlag = v;
    this.generation++;
    this.log.info({ instance: this.id, alone: v }, v ? 'only live process: serving reads from memory' : 'other processes live: reading from Postgres');
  }

  private async beat(): Promise<void> {
    const sentAt = performance.now();
    let b;
    try {
      b = await heartbeat(this.db, this.id, this.leaseMs, this.epochSeen);
    } catch (err) {
      this.setAlone(false);
      this.log.warn({ err: (err as Error).message }, 'heartbeat failed');
      return;
    }
    if (b.epoch > this.epochSeen) {
      this.setAlone(false); // stop trusting memory first, then let the newcomer go ahead
      await acknowledgeEpoch(this.db, this.id, b.epoch).catch(() => {});
      this.epochSeen = b.epoch;
      return;
    }
    this.trustedUntil = sentAt + this.leaseMs / 2;
    this.setAlone(b.others === 0);
  }

  async leave(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.beating;
    this.setAlone(false);
    await deregisterInstance(this.db, this.id).catch(() => {});
  }
}

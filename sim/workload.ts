// The command generator: several concurrent clients, each drawing its scenarios from its own stream
// of the seed. Every money-moving command is keyed; some are sent twice at once to both processes,
// some again a while later, and unknown outcomes are retried with the same key (sim/client.ts).
import type { History, Op, OpKind } from './history.js';
import { run, type Auth } from './client.js';
import { Rng } from './rng.js';
import type { World } from './world.js';

// The sandbox bank's test cards, defined once for tests and the simulator.
export { CARDS } from '../test/helpers/checkout.js';
import { CARDS } from '../test/helpers/checkout.js';
const card = (number: string) => ({ number, exp_month: '12', exp_year: '34', cvc: '731' });
const PAYOUT_CARD = { type: 'card', card: CARDS.mastercard };

export interface WorkloadOptions { clients: number; stop: () => boolean }

type Scenario = 'merchant' | 'direct-auto' | 'direct-manual' | 'payout' | 'link';

class Client {
  private n = 0;
  constructor(
    private readonly name: string, private readonly rng: Rng, private readonly world: World,
    private readonly history: History, private readonly auth: Auth, private readonly stop: () => boolean,
  ) {}

  private op(kind: OpKind, keyed: boolean, target: string | null, method: string, path: string, body: unknown): Op {
    const key = keyed ? `${this.name}-${kind.replace('.', '-')}-${this.n++}` : null;
    const b = kind === 'gateway.refund' ? { ...(body as object), idempotency_key: key } : body;
    return this.history.op(kind, this.name, key, target, method, path, b);
  }

  private exec(op: Op, dupNow: number, dupLater: number) {
    return run(this.world, this.history, this.auth, this.rng, op, { dupNow: this.rng.chance(dupNow), dupLater: this.rng.chance(dupLater), stop: this.stop });
  }

  async loop(): Promise<void> {
    while (!this.stop()) {
      const s = this.rng.weighted<Scenario>([[3, 'merchant'], [3, 'direct-auto'], [2, 'direct-manual'], [3, 'payout'], [1, 'link']]);
      if (s === 'merchant') await this.merchant();
      else if (s === 'direct-auto') await this.direct('automatic');
      else if (s === 'direct-manual') await this.direct('manual');
      else if (s === 'payout') await this.payout();
      else await this.link();
    }
  }

  private amount(): number {
    return this.rng.int(10, 200) * 100;
  }

  /** A merchant API payment paid on the hosted checkout, then refunded (partly or fully) through the merchant API. */
  private async merchant() {
    const amount = this.amount();
    const created = await this.exec(this.op('payment.create', true, null, 'POST', '/api/v2/payments', { amount, currency: 'RUB' }), 0.3, 0.3);
    const id = (created?.answer as { id?: string } | null)?.id;
    if (!id || this.stop()) return;
    const number = this.rng.weighted([[8, CARDS.success], [1, CARDS.declined], [1, CARDS.insufficient]]);
    const paid = await this.exec(this.op('checkout.pay', false, id, 'POST', `/checkout/${id}/pay`, card(number)), 0.2, 0);
    if ((paid?.answer as { status?: string } | null)?.status !== 'succeeded') return;
    let left = amount;
    for (let i = 0; i < 2 && left > 0 && !this.stop(); i++) {
      // More than half of what remains, often all of it: a same-key twin then has nothing left to take.
      const full = this.rng.chance(0.4);
      const part = full ? left : Math.max(1, Math.floor(left * (0.5 + this.rng.next() * 0.5)));
      const body = full && this.rng.chance(0.5) ? {} : { amount: part };
      const r = await this.exec(this.op('merchant.refund', true, id, 'POST', `/api/v2/payments/${id}/refunds`, body), 0.6, 0.3);
      if (!r) return;
      left -= part;
    }
  }

  /** A gateway direct payment by card; automatic ones are refunded through the gateway, manual ones captured or cancelled. */
  private async direct(capture: 'automatic' | 'manual') {
    const amount = this.amount();
    const number = this.rng.weighted([[8, CARDS.success], [1, CARDS.declined]]);
    const created = await this.exec(this.op('direct.create', true, null, 'POST', '/v2/payments', { amount, currency: 'RUB', capture_method: capture, card: card(number) }), 0.3, 0.2);
    const a = created?.answer as { id?: string; status?: string } | null;
    if (!a?.id || this.stop()) return;
    if (capture === 'manual') {
      if (a.status !== 'authorized') return;
      const cancel = this.rng.chance(0.35);
      const body = cancel || this.rng.chance(0.5) ? {} : { amount: Math.max(100, Math.floor(amount * (0.3 + this.rng.next() * 0.7))) };
      await this.exec(this.op(cancel ? 'cancel' : 'capture', true, a.id, 'POST', `/v2/payments/${a.id}/${cancel ? 'cancel' : 'capture'}`, body), 0.3, 0.5);
      return;
    }
    if (a.status !== 'succeeded') return;
    let left = amount;
    for (let i = 0; i < 2 && left > 0 && !this.stop(); i++) {
      const part = this.rng.chance(0.3) ? left : Math.max(1, Math.floor(left * (0.5 + this.rng.next() * 0.5)));
      const r = await this.exec(this.op('gateway.refund', true, a.id, 'POST', `/v2/payments/${a.id}/refund`, { amount: part }), 0.3, 0.6);
      if (!r) return;
      left -= part;
    }
  }

  /** A payout of most of the one balance: two of them never fit, so a same-key twin must replay, not be refused. */
  private async payout() {
    const available = await this.balance();
    if (available < 1000) return;
    const amount = Math.floor(available * (0.55 + this.rng.next() * 0.4));
    await this.exec(this.op('payout', true, null, 'POST', '/v2/payouts', { amount, currency: 'RUB', destination: PAYOUT_CARD }), 0.7, 0.4);
  }

  private async balance(): Promise<number> {
    const s = this.world.servers[this.rng.int(0, 1)];
    try {
      const r = await fetch(`http://127.0.0.1:${s.port}/v2/balance`, { headers: { authorization: `Bearer ${this.auth.secret}` }, signal: AbortSignal.timeout(5000) });
      const b = await r.json() as { available?: { currency: string; amount: number }[] };
      return b.available?.find((x) => x.currency === 'RUB')?.amount ?? 0;
    } catch {
      return 0;
    }
  }

  /** A static link with max_uses 2, three payers at once on both processes, each paying what it got. */
  private async link() {
    const created = await this.exec(this.op('link.create', true, null, 'POST', '/api/v2/links', { type: 'static', amount: this.amount(), max_uses: 2 }), 0.2, 0);
    const id = (created?.answer as { id?: string } | null)?.id;
    if (!id) return;
    const payers = await Promise.all([0, 1, 2].map(() => this.exec(this.op('link.pay', false, id, 'POST', `/link/${id}`, {}), 0, 0)));
    for (const p of payers) {
      const m = p?.location ? /^\/pay\/([^/?#]+)$/.exec(p.location) : null;
      if (!m || this.stop()) continue;
      await this.exec(this.op('checkout.pay', false, m[1], 'POST', `/checkout/${m[1]}/pay`, card(CARDS.success)), 0.2, 0);
    }
  }
}

export async function runWorkload(seed: number, world: World, history: History, auth: Auth, o: WorkloadOptions): Promise<void> {
  const clients = Array.from({ length: o.clients }, (_, i) => new Client(`c${i}`, Rng.fork(seed, `client-${i}`), world, history, auth, o.stop));
  await Promise.all(clients.map((c) => c.loop()));
}

// Reads of payments by primary key, grouped: the lookups that arrive together (one event-loop turn,
// or while earlier reads are in flight) become one named prepared statement
// `SELECT * FROM payments WHERE id = ANY($1)`; the gateway's reads by id (with their refund count and
// bank reference) and the merchants' default channels have their own. Every read goes to Postgres; nothing is cached.
import type pg from 'pg';
import { isCheckoutId } from '../domain/ids.js';
import type { Payment } from '../domain/payment.js';
import { Batcher, type BatcherStats } from './batcher.js';
import type { Channel } from '../domain/channel.js';
import { defaultChannelsOf, scopeKey, scopeOfKey, type Scope } from './channels-repo.js';
import { gatewayRowsByIds, type GatewayPaymentRead } from './gateway-payments-repo.js';
import { rowToCheckout, type CheckoutRow, type PaymentWithCheckout } from './checkout-repo.js';
import { rowToPayment } from './payment-row.js';
import { MS_TIMESTAMPS } from './timestamps.js';
import { columns } from './columns.js';

export interface PaymentReadsOptions {
  /** Ids per statement, at most (default 256). */
  maxBatch?: number;
  /** Statements in flight at once, at most (default 4: a quarter of the default pool). */
  maxInflight?: number;
  /** Told about every failed statement; its lookups fail with the same error. */
  onError(err: Error, lookups: number): void;
}

/** Rows of many payments by id, in one statement. */
export async function paymentRowsByIds(db: pg.Pool, ids: string[]): Promise<Map<string, CheckoutRow>> {
  const res = await db.query<CheckoutRow>({ name: 'payments_by_ids', text: `SELECT ${columns('payments')} FROM payments WHERE id = ANY($1::text[])`, values: [ids], types: MS_TIMESTAMPS });
  const out = new Map<string, CheckoutRow>();
  for (const r of res.rows) out.set(r.id, r);
  return out;
}

export class PaymentReads {
  private readonly batcher: Batcher<string, CheckoutRow>;
  private readonly gateway: Batcher<string, GatewayPaymentRead>;
  private readonly channels: Batcher<string, Channel>;

  constructor(db: pg.Pool, o: PaymentReadsOptions) {
    this.batcher = new Batcher({
      load: (ids) => paymentRowsByIds(db, ids), maxBatch: o.maxBatch ?? 256, maxInflight: o.maxInflight ?? 4, onError: o.onError,
    });
    this.gateway = new Batcher({
      load: (ids) => gatewayRowsByIds(db, ids), maxBatch: o.maxBatch ?? 256, maxInflight: o.maxInflight ?? 4, onError: o.onError,
    });
    this.channels = new Batcher({
      load: (keys) => defaultChannelsOf(db, keys.map(scopeOfKey)), maxBatch: o.maxBatch ?? 256, maxInflight: o.maxInflight ?? 4, onError: o.onError,
    });
  }

  /**
   * The merchant's default channel in a mode (every gateway session and direct payment without a
   * channel asks it), grouped like the reads by id: never cached, so a new default counts at once.
   */
  defaultChannel(scope: Scope): Promise<Channel | null> {
    return this.channels.get(scopeKey(scope));
  }

  /** A gateway payment (with its refund count and bank reference) by id, whichever merchant owns it. */
  gatewayPayment(id: string): Promise<GatewayPaymentRead | null> {
    return isCheckoutId(id) ? this.gateway.get(id) : Promise.resolve(null);
  }

  /** A payment by id, whichever merchant owns it: the caller checks ownership and mode. */
  async payment(id: string): Promise<Payment | null> {
    const r = await this.row(id);
    return r ? rowToPayment(r) : null;
  }

  /** A payment with its checkout state (the public checkout's session), by id. */
  async checkout(id: string): Promise<PaymentWithCheckout | null> {
    const r = await this.row(id);
    return r ? rowToCheckout(r) : null;
  }

  /**
   * Only a well-formed payment id joins a statement shared with other callers: a string Postgres
   * refuses (a NUL byte) or a huge one must not fail or slow the reads it would travel with.
   */
  private row(id: string): Promise<CheckoutRow | null> {
    return isCheckoutId(id) ? this.batcher.get(id) : Promise.resolve(null);
  }

  /** The three groups' counters, summed. */
  get stats(): BatcherStats {
    const all = [this.batcher.stats, this.gateway.stats, this.channels.stats];
    const sum = (f: (x: BatcherStats) => number) => all.reduce((n, x) => n + f(x), 0);
    return { loads: sum((x) => x.loads), lookups: sum((x) => x.lookups), failedLoads: sum((x) => x.failedLoads), largest: Math.max(...all.map((x) => x.largest)) };
  }
}

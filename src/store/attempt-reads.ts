// What an actor reads of a payment it does not hold, in one statement for all the reads of a worker
// that arrive together (a Batcher, on the worker's thread): the payment alone (an expiry, an apply),
// or what an attempt on it (a refund, a capture, a void) needs before it starts: the payment, the request's key (a refund or an attempt
// already made with it), the bank's reference of the charge and whether the connector refunds the
// payment's method. One statement is one snapshot: a key's refund or attempt and the payment's move
// it made commit together, so the payment read here always shows what the key's object did.
import type pg from 'pg';
import type { Payment } from '../domain/payment.js';
import type { Refund } from '../domain/refund.js';
import { isCheckoutId } from '../domain/ids.js';
import { Batcher } from './batcher.js';
import { rowToAttempt, type Attempt } from './attempts-repo.js';
import type { CheckoutState } from '../domain/checkout.js';
import { rowToCheckout, type CheckoutRow } from './checkout-repo.js';
import { CONNECTOR_TRANSACTION_OF_P, REFUND_COUNT_OF_P, type GatewayExtras } from './gateway-payments-repo.js';
import { rowToRefund, type RefundRow } from './refund-row.js';
import { MS_TIMESTAMPS } from './timestamps.js';
import { columns } from './columns.js';

export interface BeforeAttemptQuery {
  paymentId: string;
  /** Whether to read the bank's reference of the payment's charge (or authorization). */
  chargeRef: boolean;
  /** The connector whose capability row says whether the payment's method may be refunded. */
  refundTermsOf?: string;
  /** A refund's Idempotency-Key, in its merchant and mode. */
  refundKey?: { merchantId: string; livemode: boolean; key: string };
  /** A capture's or a void's Idempotency-Key scope (attempts-repo.ts). */
  attemptScope?: string;
  /** Whether to read what the gateway's view of the payment adds (its checkout, refund count and bank transaction). */
  gatewayView?: boolean;
}

/** What GET /v2/payments/{id} shows beside the payment row, read in the same snapshot. */
export interface GatewayViewExtras extends GatewayExtras { checkout: CheckoutState }

export interface BeforeAttempt {
  payment: Payment;
  chargeRef: string | null;
  /** True when refundTermsOf was not asked, or the method has no capability row. */
  refundSupported: boolean;
  priorRefund: Refund | null;
  priorAttempt: Attempt | null;
  /** When gatewayView was asked. */
  view: GatewayViewExtras | null;
}

// `k` carries each lookup's own key back; a payment that does not exist returns no row.
const SQL = `
SELECT q.k, ${columns('payments', 'p')},
  CASE WHEN q.want_ref THEN (SELECT a.result->>'ref' FROM connector_attempts a
     WHERE a.aggregate_id = p.id AND a.status = 'succeeded' AND a.operation NOT IN ('refund', 'capture', 'void')
     ORDER BY a.updated_at DESC LIMIT 1) END AS x_charge_ref,
  CASE WHEN q.connector IS NOT NULL THEN (SELECT c.supports_refund FROM connector_method_capabilities c
     WHERE c.connector = q.connector AND c.method_code = COALESCE(p.checkout->>'method', p.method, 'card')) END AS x_refund_supported,
  CASE WHEN q.refund_key IS NOT NULL THEN (SELECT to_jsonb(r) FROM refunds r
     WHERE r.merchant_id = q.merchant_id AND r.livemode = q.livemode AND r.idempotency_key = q.refund_key LIMIT 1) END AS x_prior_refund,
  CASE WHEN q.attempt_scope IS NOT NULL THEN (SELECT to_jsonb(a) FROM connector_attempts a
     WHERE a.idempotency_scope = q.attempt_scope AND a.status <> 'abandoned' LIMIT 1) END AS x_prior_attempt,
  CASE WHEN q.want_view THEN ${REFUND_COUNT_OF_P} END AS x_refund_count,
  CASE WHEN q.want_view THEN ${CONNECTOR_TRANSACTION_OF_P} END AS x_connector_tx
FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::boolean[], $7::text[], $8::text[], $9::boolean[])
  AS q(k, pid, want_ref, connector, merchant_id, livemode, refund_key, attempt_scope, want_view)
JOIN payments p ON p.id = q.pid`;

type Row = CheckoutRow & {
  k: string; x_charge_ref: string | null; x_refund_supported: boolean | null; x_prior_refund: RefundRow | null; x_prior_attempt: Record<string, unknown> | null;
  x_refund_count: number | null; x_connector_tx: string | null;
};

/** The reads of many attempts, in one statement; a lookup whose payment does not exist is absent. */
export async function readBeforeAttempts(db: pg.Pool, qs: BeforeAttemptQuery[]): Promise<Map<BeforeAttemptQuery, BeforeAttempt>> {
  const col = <T>(f: (q: BeforeAttemptQuery, i: number) => T) => qs.map(f);
  const res = await db.query<Row>({
    name: 'before_attempts',
    text: SQL,
    values: [col((_q, i) => String(i)), col((q) => q.paymentId), col((q) => q.chargeRef), col((q) => q.refundTermsOf ?? null),
      col((q) => q.refundKey?.merchantId ?? null), col((q) => q.refundKey?.livemode ?? null), col((q) => q.refundKey?.key ?? null),
      col((q) => q.attemptScope ?? null), col((q) => q.gatewayView === true)],
    types: MS_TIMESTAMPS,
  });
  const out = new Map<BeforeAttemptQuery, BeforeAttempt>();
  for (const r of res.rows) {
    const q = qs[Number(r.k)];
    const { payment, checkout } = rowToCheckout(r);
    out.set(q, {
      payment, chargeRef: r.x_charge_ref, refundSupported: r.x_refund_supported ?? true,
      priorRefund: r.x_prior_refund ? rowToRefund(r.x_prior_refund) : null,
      priorAttempt: r.x_prior_attempt ? rowToAttempt(r.x_prior_attempt) : null,
      view: q.gatewayView ? { checkout, refundCount: r.x_refund_count ?? 0, connectorTransactionId: r.x_connector_tx } : null,
    });
  }
  return out;
}

/**
 * The grouped reader a worker's actors share. Freshness as the Batcher's: a lookup only joins a
 * statement not yet sent, so it sees every commit made before it asked.
 */
export class AttemptReads {
  private readonly batcher: Batcher<BeforeAttemptQuery, BeforeAttempt>;

  constructor(db: pg.Pool, o: { maxBatch?: number; maxInflight?: number; onError(err: Error, lookups: number): void }) {
    this.batcher = new Batcher({ load: (qs) => readBeforeAttempts(db, qs), maxBatch: o.maxBatch ?? 128, maxInflight: o.maxInflight ?? 2, onError: o.onError });
  }

  /**
   * The payment and what its attempt needs; null when the payment does not exist. Only a
   * well-formed payment id joins a statement shared with other reads (a string Postgres refuses
   * must not fail the reads it would travel with); no payment has another.
   */
  read(q: BeforeAttemptQuery): Promise<BeforeAttempt | null> {
    return isCheckoutId(q.paymentId) ? this.batcher.get(q) : Promise.resolve(null);
  }

  get stats() { return this.batcher.stats; }
}

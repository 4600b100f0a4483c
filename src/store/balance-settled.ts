// The settled net of each balance (merchant, mode, currency), kept in `balance_settled` (migration
// 028) by the statements that settle payments, so that a payout's reservation and GET /v2/balance
// read at most 16 rows instead of the merchant's whole payment history (docs/decisions.md, "A
// balance is kept, not summed").
import type pg from 'pg';
import { BALANCE_STATUSES } from '../domain/payment-status.js';

/** The stripes a balance is spread over: one per connection, by backend pid. */
const STRIPES = 16;

/**
 * A CTE (`bal`) that adds, for the payments `upd` moved, their balance delta (balanceDelta of the
 * row before and after, from its actor) to this connection's stripe of their balances. Only rows the
 * statement applied count (`upd`: their version matched, so the actor's "before" is the row's). One
 * row per balance, visited in key order, so two statements meet shared stripes alike. The delta is
 * `v.balance_delta` of the row of `v` whose column `key` names the payment, or, with
 * `{ onUpd: column }`, a column that `upd` returned (no second join of two CTEs).
 */
export const balanceCte = (key: 'id' | 'pid' | { onUpd: string }): string => {
  const [delta, from] = typeof key === 'string'
    ? ['v.balance_delta', `upd JOIN v ON v.${key} = upd.id`]
    : [`upd.${key.onUpd}`, 'upd'];
  return `bal AS (
  INSERT INTO balance_settled (merchant_id, livemode, currency, stripe, net)
  SELECT upd.merchant_id, upd.livemode, upd.currency, (pg_backend_pid() % ${STRIPES})::smallint, sum(${delta})::bigint
  FROM ${from} WHERE ${delta} <> 0
  GROUP BY upd.merchant_id, upd.livemode, upd.currency ORDER BY upd.merchant_id, upd.livemode, upd.currency
  ON CONFLICT (merchant_id, livemode, currency, stripe) DO UPDATE SET net = balance_settled.net + excluded.net
)`;
};

/** The settled net of the balance the columns `<alias>.merchant_id`, `.livemode` and `.currency` name: a scalar subquery. */
export const settledNetOf = (alias: string): string =>
  `(SELECT COALESCE(sum(s.net), 0) FROM balance_settled s
    WHERE s.merchant_id = ${alias}.merchant_id AND s.livemode = ${alias}.livemode AND s.currency = ${alias}.currency)::bigint`;

export interface BalanceDrift { merchantId: string; livemode: boolean; currency: string; kept: number; summed: number }

const SETTLED = BALANCE_STATUSES.map((s) => `'${s}'`).join(', ');

/**
 * The balances whose kept net differs from the net summed over their settled payments (the audit
 * of the kept figure: the simulator's check and the tests'). A scan of every payment: never on a
 * request's path.
 */
export async function balanceDrift(db: pg.Pool, merchantId: string | null = null): Promise<BalanceDrift[]> {
  const res = await db.query<{ merchant_id: string; livemode: boolean; currency: string; kept: string; summed: string }>(
    `WITH kept AS (
       SELECT merchant_id, livemode, currency, sum(net)::bigint AS net FROM balance_settled
       WHERE $1::text IS NULL OR merchant_id = $1 GROUP BY merchant_id, livemode, currency
     ), summed AS (
       SELECT merchant_id, livemode, currency, sum(net)::bigint AS net FROM payments
       WHERE status IN (${SETTLED}) AND ($1::text IS NULL OR merchant_id = $1) GROUP BY merchant_id, livemode, currency
     )
     SELECT merchant_id, livemode, currency, COALESCE(kept.net, 0) AS kept, COALESCE(summed.net, 0) AS summed
     FROM kept FULL JOIN summed USING (merchant_id, livemode, currency)
     WHERE COALESCE(kept.net, 0) <> COALESCE(summed.net, 0)
     ORDER BY merchant_id, livemode, currency`, [merchantId]);
  return res.rows.map((r) => ({ merchantId: r.merchant_id, livemode: r.livemode, currency: r.currency, kept: Number(r.kept), summed: Number(r.summed) }));
}

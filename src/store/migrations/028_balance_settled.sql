-- A balance's settled net, kept as it changes instead of summed from every payment it ever had
-- (docs/decisions.md, "A balance is kept, not summed"). Until this migration a payout's reservation
-- and GET /v2/balance summed the net of all the merchant's settled payments in the currency and
-- mode: a scan of the merchant's whole payment history on every payout group, growing without end.
--
-- The net of (merchant, mode, currency) is Σ net over its rows here. The statements that move a
-- payment into, within or out of the settled statuses (payments-repo.ts updatePayments,
-- refunds-repo.ts settleRefunds) add the change in the same statement, grouped by balance. Each
-- connection adds to its own stripe (pg_backend_pid() % 16), so the grouped statements of several
-- shards and processes do not queue on one row's lock for the balance of a busy merchant; a reader
-- sums at most 16 rows. A row is updated on every grouped statement that settles a payment of its
-- balance: fillfactor 50 leaves room for those updates to stay on the page (HOT).
CREATE TABLE balance_settled (
  merchant_id text NOT NULL,
  livemode    boolean NOT NULL,
  currency    text NOT NULL,
  stripe      smallint NOT NULL,
  net         bigint NOT NULL,
  PRIMARY KEY (merchant_id, livemode, currency, stripe)
) WITH (fillfactor = 50);

-- The payments settled so far, as stripe 0. The lock holds the writes of any process still running
-- until this transaction commits, so none is counted twice or missed (operations.md, "Upgrades").
LOCK TABLE payments IN SHARE MODE;
INSERT INTO balance_settled (merchant_id, livemode, currency, stripe, net)
SELECT merchant_id, livemode, currency, 0, sum(net) FROM payments
WHERE status IN ('succeeded', 'partially_refunded', 'refunded')
GROUP BY merchant_id, livemode, currency;

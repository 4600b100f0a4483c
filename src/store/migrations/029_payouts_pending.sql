-- GET /v2/balance's `pending` (the payouts sent and not yet settled by the bank) reads the pending
-- payouts through their own index. It read them through payouts_balance, which holds every payout
-- that did not fail: the paid ones too, so the read grew with the merchant's payout history. Since
-- migration 024 nothing else reads payouts_balance (the held sum is kept in payout_balances), so it
-- is replaced: a payout's entry now leaves the index when it settles instead of staying for ever,
-- and a payout's settlement writes no index entry for it (docs/decisions.md, "A balance is kept,
-- not summed"). The build holds writes to payouts for one pass over the table.
CREATE INDEX payouts_pending ON payouts (merchant_id, livemode, currency) WHERE status = 'pending';
DROP INDEX IF EXISTS payouts_balance;

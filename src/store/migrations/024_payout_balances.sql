-- What each balance has reserved for payouts (issue 25): `held` = Σ amount of the balance's payouts
-- that have not failed (pending or paid), kept by the two statements that change it: the payout's
-- reservation (src/store/payouts-repo.ts beginPayouts, which takes this row's lock only for that one
-- statement) and the settlement of a failed payout (settlePayouts, which gives the amount back).
-- The available balance is Σ net of settled payments − held, as GET /v2/balance computes from rows.
CREATE TABLE IF NOT EXISTS payout_balances (
  merchant_id text NOT NULL,
  livemode    boolean NOT NULL,
  currency    text NOT NULL,
  held        bigint NOT NULL CHECK (held >= 0),
  PRIMARY KEY (merchant_id, livemode, currency)
);
INSERT INTO payout_balances (merchant_id, livemode, currency, held)
SELECT merchant_id, livemode, currency, sum(amount) FROM payouts WHERE status <> 'failed' GROUP BY merchant_id, livemode, currency
ON CONFLICT DO NOTHING;

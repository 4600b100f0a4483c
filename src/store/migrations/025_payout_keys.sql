-- A payout's Idempotency-Key binds whatever the request that began executing with it came to: the
-- payout it made, or its refusal for the balance (insufficient_balance), as Stripe keeps the result
-- of any request that began executing. One row per key in one unique namespace, so a same-key twin
-- in another process meets the first one's row on the primary key whichever it is, and is answered
-- by it: a refusal can no longer be followed by its twin's payout when the balance grew in between
-- (docs/decisions.md "A refused payout binds its key"). The payout's own `idempotency_key` column
-- stays as the record of the key it was made with; this table is the arbiter. Keys are released
-- after 24 hours (scheduler), a pending payout's never.
CREATE TABLE IF NOT EXISTS payout_keys (
  merchant_id     text NOT NULL,
  livemode        boolean NOT NULL,
  idempotency_key text NOT NULL,
  request_hash    text NOT NULL,
  payout_id       text,            -- the payout the key made, or null: refused
  refusal         jsonb,           -- {code, available, currency, request_id} of the refusal
  created_at      timestamptz NOT NULL,
  PRIMARY KEY (merchant_id, livemode, idempotency_key),
  CHECK ((payout_id IS NULL) <> (refusal IS NULL))
);
INSERT INTO payout_keys (merchant_id, livemode, idempotency_key, request_hash, payout_id, created_at)
SELECT merchant_id, livemode, idempotency_key, COALESCE(request_hash, ''), id, created_at FROM payouts WHERE idempotency_key IS NOT NULL
ON CONFLICT DO NOTHING;
DROP INDEX IF EXISTS payouts_idempotency;

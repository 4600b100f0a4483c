-- Payouts (issue 12). A payout row is written by its own actor: `pending` in the transaction that
-- takes the merchant's balance lock for its currency and mode, checks the available balance and
-- records the connector attempt (so two payouts never both spend the same money, in any process);
-- `paid` or `failed` in the statement that records the bank's answer and writes the outbox event.
-- Only the destination's masked form is kept (card: brand, last4, keyed fingerprint; IBAN: country,
-- last4, BIC; SBP: the phone's last four digits and the bank's member id).
CREATE TABLE payouts (
  id              text PRIMARY KEY,                -- po_…
  merchant_id     text NOT NULL,
  livemode        boolean NOT NULL,
  amount          bigint NOT NULL CHECK (amount > 0),
  currency        text NOT NULL,
  status          text NOT NULL CHECK (status IN ('pending', 'paid', 'failed')),
  destination     jsonb NOT NULL,
  failure         jsonb,
  metadata        jsonb NOT NULL DEFAULT '{}',
  attempt_id      text NOT NULL UNIQUE,            -- the connector attempt that carries it
  connector_ref   text,
  request_id      text NOT NULL,
  idempotency_key text,
  request_hash    text,
  version         integer NOT NULL DEFAULT 0,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);
CREATE UNIQUE INDEX payouts_idempotency ON payouts (merchant_id, livemode, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX payouts_merchant ON payouts (merchant_id, livemode, created_at DESC, id DESC);
CREATE INDEX payouts_balance ON payouts (merchant_id, livemode, currency) WHERE status <> 'failed';

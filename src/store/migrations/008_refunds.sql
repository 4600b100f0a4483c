-- Refunds (issue 10). A refund row is written by its payment's actor: `pending` in the statement that
-- records the connector attempt on the payment (so the idempotency key is claimed before the bank is
-- asked), and `succeeded` or `failed` in the statement that records the bank's answer, moves the
-- payment and writes the outbox events. A refund that never reached the bank leaves no row.
CREATE TABLE refunds (
  id              text PRIMARY KEY,                -- ref_…
  payment_id      text NOT NULL REFERENCES payments(id),
  merchant_id     text NOT NULL,
  livemode        boolean NOT NULL,
  amount          bigint NOT NULL CHECK (amount > 0),
  currency        text NOT NULL,
  status          text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  reason          text,
  failure_code    text,                            -- why the bank refused it (status failed)
  attempt_id      text NOT NULL UNIQUE,            -- the connector attempt that carries it
  connector_ref   text,                            -- the bank's reference of the refund
  request_id      text NOT NULL,
  idempotency_key text,
  request_hash    text,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);
CREATE UNIQUE INDEX refunds_idempotency ON refunds (merchant_id, livemode, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX refunds_payment ON refunds (payment_id, created_at DESC, id DESC);
CREATE INDEX refunds_idempotency_age ON refunds (created_at) WHERE idempotency_key IS NOT NULL;

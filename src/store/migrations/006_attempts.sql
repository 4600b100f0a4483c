-- The attempt protocol (DESIGN invariant 9): every money-moving connector call is recorded here
-- before it is made, under the version check of the aggregate that makes it, and its outcome after.
-- A payment names its attempt in flight in pending_attempt, so no second call can start beside it.
CREATE TABLE connector_attempts (
  id            text PRIMARY KEY,            -- att_…: the connector's idempotency key
  aggregate_id  text NOT NULL,               -- the payment (later: refund, payout) that made it
  operation     text NOT NULL,
  connector     text NOT NULL,
  amount        bigint NOT NULL,
  currency      text NOT NULL,
  status        text NOT NULL CHECK (status IN ('started', 'succeeded', 'failed', 'action_required', 'abandoned')),
  context       jsonb NOT NULL DEFAULT '{}', -- what recovery needs to apply the outcome (never card data)
  result        jsonb,
  recover_lease timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX connector_attempts_aggregate ON connector_attempts (aggregate_id, created_at);
CREATE INDEX connector_attempts_started ON connector_attempts (created_at) WHERE status = 'started';

ALTER TABLE payments ADD COLUMN pending_attempt text;

-- The sandbox bank's own ledger: one row per operation it received, keyed by the caller's
-- idempotency key. A repeated key returns the first result and moves no money twice; a status
-- query for a key it never saw closes that key (a later call with it is refused), so a caller that
-- asked can trust the answer. Kept in Postgres so that every server process sees one bank.
CREATE TABLE sandbox_ledger (
  idempotency_key text PRIMARY KEY,
  operation       text NOT NULL,
  reference       text,                      -- the bank's reference the operation acted on (3DS, SBP, wallet)
  amount          bigint NOT NULL,
  currency        text NOT NULL,
  moved           boolean NOT NULL,           -- whether money moved (a charge that succeeded)
  result          jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);
-- The bank settles one challenge or one page decision once, whatever key a caller repeats it with.
CREATE UNIQUE INDEX sandbox_ledger_reference ON sandbox_ledger (operation, reference) WHERE reference IS NOT NULL;

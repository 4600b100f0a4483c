-- Payment links (issue 10). `uses` counts paid payments; `holds` maps the id of each payment created
-- for the link and not yet settled to when its use was reserved (ms), so uses + holds never exceeds
-- max_uses. The link's actor reserves under the row's version; the payment's settling statement
-- (payments-repo UPDATE_SQL) turns a hold into a use or returns it. The idempotency key of the create
-- is kept on the row under a unique index, like a payment's.
CREATE TABLE links (
  id              text PRIMARY KEY,
  merchant_id     text NOT NULL REFERENCES merchants(id),
  livemode        boolean NOT NULL,
  type            text NOT NULL CHECK (type IN ('dynamic', 'static')),
  amount          bigint CHECK (amount IS NULL OR amount > 0),  -- null: the payer sets it
  currency        text NOT NULL,
  description     text,
  max_uses        integer CHECK (max_uses IS NULL OR max_uses > 0),
  uses            integer NOT NULL DEFAULT 0,
  holds           jsonb NOT NULL DEFAULT '{}',
  expires_at      timestamptz,
  active          boolean NOT NULL DEFAULT true,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  version         integer NOT NULL,
  request_id      text NOT NULL,
  idempotency_key text,
  request_hash    text
);
CREATE UNIQUE INDEX links_idempotency ON links (merchant_id, livemode, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX links_list ON links (merchant_id, livemode, created_at DESC, id DESC);

ALTER TABLE payments ADD COLUMN link_id text;
CREATE INDEX payments_link ON payments (link_id) WHERE link_id IS NOT NULL;

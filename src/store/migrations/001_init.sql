-- Merchants, their API keys, payments and the event outbox.
CREATE TABLE merchants (
  id                    text PRIMARY KEY,
  name                  text NOT NULL,
  default_currency      text NOT NULL,
  currencies            text[] NOT NULL,
  api_enabled           boolean NOT NULL DEFAULT true,
  rate_limit_per_minute integer,
  fee_bps               integer NOT NULL DEFAULT 0,
  fee_fixed             bigint NOT NULL DEFAULT 0,
  is_demo               boolean NOT NULL DEFAULT false,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  version               integer NOT NULL DEFAULT 1
);

CREATE TABLE api_keys (
  id          text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  kind        text NOT NULL CHECK (kind IN ('merchant', 'secret', 'restricted', 'publishable')),
  mode        text NOT NULL CHECK (mode IN ('test', 'live')),
  key_hash    text NOT NULL UNIQUE,
  key_hint    text NOT NULL,
  channel_id  text,
  permissions text[],
  label       text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);
CREATE INDEX api_keys_merchant ON api_keys (merchant_id);

CREATE TABLE payments (
  id              text PRIMARY KEY,
  merchant_id     text NOT NULL REFERENCES merchants(id),
  livemode        boolean NOT NULL,
  status          text NOT NULL,
  amount          bigint NOT NULL CHECK (amount > 0),
  currency        text NOT NULL,
  amount_refunded bigint NOT NULL DEFAULT 0,
  fee             bigint NOT NULL,
  net             bigint NOT NULL,
  charged         jsonb,
  order_id        text,
  description     text,
  metadata        jsonb NOT NULL DEFAULT '{}',
  method          text,
  customer        jsonb NOT NULL DEFAULT '{}',
  card            jsonb,
  failure         jsonb,
  return_url      text,
  locale          text,
  source          text NOT NULL,
  created_at      timestamptz NOT NULL,
  paid_at         timestamptz,
  expires_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  version         integer NOT NULL,
  request_id      text NOT NULL,
  idempotency_key text,
  request_hash    text,
  expiry_lease    timestamptz
);
CREATE UNIQUE INDEX payments_idempotency ON payments (merchant_id, livemode, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX payments_list ON payments (merchant_id, livemode, created_at DESC, id DESC);
CREATE INDEX payments_order ON payments (merchant_id, livemode, order_id, created_at DESC) WHERE order_id IS NOT NULL;
CREATE INDEX payments_due ON payments (expires_at) WHERE status = 'pending';

-- Outbox: every domain event, written in the transaction of the change that caused it.
CREATE TABLE events (
  id           text PRIMARY KEY,
  merchant_id  text NOT NULL,
  livemode     boolean NOT NULL,
  type         text NOT NULL,
  aggregate_id text NOT NULL,
  data         jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_merchant ON events (merchant_id, created_at DESC);

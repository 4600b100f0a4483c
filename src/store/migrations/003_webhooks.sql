-- Webhook endpoints per merchant and API, and the deliveries of outbox events to them.
ALTER TABLE events ADD COLUMN api text NOT NULL DEFAULT 'merchant';

CREATE TABLE webhook_settings (
  id                  text PRIMARY KEY,
  merchant_id         text NOT NULL REFERENCES merchants(id),
  api                 text NOT NULL CHECK (api IN ('merchant', 'gateway')),
  channel_id          text,
  url                 text NOT NULL,
  events              text[],
  secret              text NOT NULL,
  previous_secret     text,
  previous_expires_at timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX webhook_settings_scope ON webhook_settings (merchant_id, api, COALESCE(channel_id, ''));

CREATE TABLE webhook_deliveries (
  id              text PRIMARY KEY,
  event_id        text NOT NULL REFERENCES events(id),
  merchant_id     text NOT NULL,
  settings_id     text REFERENCES webhook_settings(id) ON DELETE SET NULL,
  api             text NOT NULL,
  target_url      text,
  status          text NOT NULL CHECK (status IN ('pending', 'delivering', 'succeeded', 'undelivered', 'gone')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  lease_until     timestamptz,
  last_status     integer,
  last_error      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (lease_until) WHERE status = 'delivering';
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

CREATE TABLE webhook_attempts (
  delivery_id text NOT NULL REFERENCES webhook_deliveries(id),
  attempt     integer NOT NULL,
  started_at  timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  error       text,
  PRIMARY KEY (delivery_id, attempt)
);

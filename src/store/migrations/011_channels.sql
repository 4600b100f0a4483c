-- Gateway channels (issue 11; 012 because 011 is the SBP member list of a parallel branch): a
-- merchant's traffic sources, each with branding, a webhook URL and secret, and a currency mix.
-- Channels are per mode like every other gateway object: a test key sees only test channels.
-- Every merchant has exactly one default channel per mode: created with the merchant (and below
-- for merchants that exist), moved only by promote-default, never paused or deleted (the CHECK),
-- and never two (the partial unique index).
CREATE TABLE channels (
  id                         text PRIMARY KEY,
  uuid                       uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
  merchant_id                text NOT NULL REFERENCES merchants(id),
  livemode                   boolean NOT NULL,
  slug                       text NOT NULL,
  name                       text NOT NULL,
  status                     text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'deleted')),
  is_default                 boolean NOT NULL DEFAULT false,
  branding                   jsonb NOT NULL DEFAULT '{}',
  webhook_url                text,
  webhook_secret             text NOT NULL,
  previous_webhook_secret    text,
  previous_secret_expires_at timestamptz,
  currencies                 text[] NOT NULL DEFAULT '{}',
  created_at                 timestamptz NOT NULL DEFAULT now(),
  updated_at                 timestamptz NOT NULL DEFAULT now(),
  deleted_at                 timestamptz,
  version                    integer NOT NULL DEFAULT 1,
  CONSTRAINT channels_default_active CHECK (NOT is_default OR status = 'active')
);
-- A soft-deleted channel keeps its slug, so that it can be restored.
CREATE UNIQUE INDEX channels_slug ON channels (merchant_id, livemode, slug);
CREATE UNIQUE INDEX channels_one_default ON channels (merchant_id, livemode) WHERE is_default;

INSERT INTO channels (id, merchant_id, livemode, slug, name, is_default, webhook_secret)
SELECT 'ch_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 20), m.id, mode.livemode, 'default', 'Default', true,
       'whsec_' || replace(gen_random_uuid()::text, '-', '')
FROM merchants m CROSS JOIN (VALUES (false), (true)) AS mode(livemode);

-- A key's channel_id was free text before; a key naming no channel could never have worked on the
-- gateway (which did not exist), so it is revoked rather than silently widened to every channel.
UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()), channel_id = NULL
WHERE channel_id IS NOT NULL AND channel_id NOT IN (SELECT id FROM channels);
-- NO ACTION: a channel still named by a key cannot disappear (hard delete clears revoked keys first).
ALTER TABLE api_keys ADD CONSTRAINT api_keys_channel FOREIGN KEY (channel_id) REFERENCES channels(id);
CREATE INDEX api_keys_channel_idx ON api_keys (channel_id) WHERE channel_id IS NOT NULL;

-- The channel a payment (or checkout session) was taken on; null for merchant API payments.
ALTER TABLE payments ADD COLUMN channel_id text REFERENCES channels(id);
CREATE INDEX payments_channel ON payments (channel_id) WHERE channel_id IS NOT NULL;

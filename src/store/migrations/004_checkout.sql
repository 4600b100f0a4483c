-- Hosted checkout: the checkout state of a payment (its id doubles as the session id), the
-- three-layer method catalog (MCA, CMC, MCS), the SBP member whitelist and saved cards.

-- Checkout state lives on the payment row, so one version check guards both (see docs/decisions.md).
ALTER TABLE payments ADD COLUMN checkout jsonb;

-- CMC: what each connector can do, platform-wide (managed by platform operations).
CREATE TABLE connector_method_capabilities (
  connector          text NOT NULL,
  method_code        text NOT NULL,
  enabled            boolean NOT NULL DEFAULT true,
  render_mode        text NOT NULL,
  display_order      integer NOT NULL DEFAULT 100,
  supports_recurring boolean NOT NULL DEFAULT false,
  supports_refund    boolean NOT NULL DEFAULT true,
  min_amount_minor   bigint,
  max_amount_minor   bigint,
  allowed_currencies text[] NOT NULL DEFAULT '{}',
  updated_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connector, method_code)
);

-- MCA: the methods an acquirer switched on for a merchant. A merchant without any row for a
-- connector has that connector's full capability switched on.
CREATE TABLE merchant_connector_methods (
  merchant_id text NOT NULL REFERENCES merchants(id),
  connector   text NOT NULL,
  method_code text NOT NULL,
  enabled     boolean NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_id, connector, method_code)
);

-- MCS: the merchant's own toggles and display order. No row means enabled, connector's order.
CREATE TABLE merchant_method_settings (
  merchant_id   text NOT NULL REFERENCES merchants(id),
  method_code   text NOT NULL,
  enabled       boolean NOT NULL,
  display_order integer,
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_id, method_code)
);

INSERT INTO connector_method_capabilities
  (connector, method_code, render_mode, display_order, supports_recurring, supports_refund, min_amount_minor, max_amount_minor, allowed_currencies)
SELECT c.connector, m.code, m.render_mode, m.ord, m.rec, m.ref, m.min_a, m.max_a, m.cur
FROM (VALUES ('sandbox'), ('live')) AS c(connector),
(VALUES
  ('card',       'inline_form', 10, true,  true,  NULL::bigint, NULL::bigint, '{}'::text[]),
  ('sbp',        'qr_code',     20, false, true,  100,          NULL,         '{RUB}'),
  ('sberpay',    'redirect',    30, false, true,  100,          NULL,         '{RUB}'),
  ('tpay',       'redirect',    40, false, true,  100,          NULL,         '{RUB}'),
  ('yoomoney',   'redirect',    50, false, true,  100,          1500000,      '{RUB}'),
  ('recurrent',  'inline_form', 60, true,  true,  NULL,         NULL,         '{}'),
  ('apple_pay',  'modal',       70, false, true,  NULL,         NULL,         '{}'),
  ('google_pay', 'modal',       80, false, true,  NULL,         NULL,         '{}')
) AS m(code, render_mode, ord, rec, ref, min_a, max_a, cur);

-- SBP participants: the whitelist a bank member id is checked against.
CREATE TABLE sbp_members (
  member_id        text PRIMARY KEY CHECK (member_id ~ '^[0-9]{12}$'),
  name_en          text NOT NULL,
  name_ru          text NOT NULL,
  name_az          text NOT NULL,
  logo_url         text NOT NULL DEFAULT '',
  deeplink_ios     text NOT NULL DEFAULT '',
  deeplink_android text NOT NULL DEFAULT '',
  is_popular       boolean NOT NULL DEFAULT false,
  display_order    integer NOT NULL DEFAULT 100,
  active           boolean NOT NULL DEFAULT true
);
INSERT INTO sbp_members (member_id, name_en, name_ru, name_az, is_popular, display_order) VALUES
  ('100000000111', 'Sberbank',       'Сбербанк',         'Sberbank',       true, 1),
  ('100000000004', 'T-Bank',         'Т-Банк',           'T-Bank',         true, 2),
  ('110000000005', 'VTB',            'ВТБ',              'VTB',            true, 3),
  ('100000000008', 'Alfa-Bank',      'Альфа-Банк',       'Alfa-Bank',      true, 4),
  ('100000000007', 'Raiffeisenbank', 'Райффайзенбанк',   'Raiffeisenbank', false, 10),
  ('100000000015', 'Otkritie',       'Открытие',         'Otkritie',       false, 11),
  ('100000000010', 'Promsvyazbank',  'Промсвязьбанк',    'Promsvyazbank',  false, 12),
  ('100000000001', 'Gazprombank',    'Газпромбанк',      'Gazprombank',    false, 13);

-- Cards saved on a successful payment for later recurrent charges: never the number, only the
-- connector's token, the summary and the keyed fingerprint.
CREATE TABLE saved_cards (
  id              text PRIMARY KEY,
  merchant_id     text NOT NULL REFERENCES merchants(id),
  livemode        boolean NOT NULL,
  customer_key    text NOT NULL,
  connector       text NOT NULL,
  connector_token text NOT NULL,
  card            jsonb NOT NULL,
  fingerprint     text NOT NULL,
  payment_id      text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (merchant_id, livemode, customer_key, fingerprint)
);

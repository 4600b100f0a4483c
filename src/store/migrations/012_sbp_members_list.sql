-- SBP bank lists (issue 11): the sbp_members table of 004 becomes the one managed source of the
-- public bank lists and of the submit-method whitelist. Adds timestamps for the operator API and
-- seeds a realistic set of Russian banks with their NSPK participant ids (12 digits), the NSPK logo
-- and the bank<member_id>:// app scheme of the NSPK QR link (a client appends the QR link's path).
-- The seed upserts by member_id, so ids already present (the eight of 004) get the full record.
ALTER TABLE sbp_members
  ADD COLUMN IF NOT EXISTS created_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN IF NOT EXISTS updated_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE sbp_members ADD CONSTRAINT sbp_members_names_present
  CHECK (length(name_en) > 0 AND length(name_ru) > 0 AND length(name_az) > 0);
ALTER TABLE sbp_members ADD CONSTRAINT sbp_members_display_order_range
  CHECK (display_order BETWEEN 0 AND 100000);

INSERT INTO sbp_members AS m (member_id, name_en, name_ru, name_az, logo_url, deeplink_ios, deeplink_android, is_popular, display_order, active)
SELECT s.member_id, s.name_en, s.name_ru, s.name_az,
       'https://qr.nspk.ru/proxyapp/logo/bank' || s.member_id || '.png',
       'bank' || s.member_id || '://qr.nspk.ru/',
       'bank' || s.member_id || '://qr.nspk.ru/',
       s.is_popular, s.display_order, s.active
FROM (VALUES
  ('100000000111', 'Sberbank',              'Сбербанк',              'Sberbank',              true,  1,  true),
  ('100000000004', 'T-Bank',                'Т-Банк',                'T-Bank',                true,  2,  true),
  ('110000000005', 'VTB',                   'ВТБ',                   'VTB',                   true,  3,  true),
  ('100000000008', 'Alfa-Bank',             'Альфа-Банк',            'Alfa-Bank',             true,  4,  true),
  ('100000000007', 'Raiffeisenbank',        'Райффайзенбанк',        'Raiffeisenbank',        true,  5,  true),
  ('100000000001', 'Gazprombank',           'Газпромбанк',           'Qazprombank',           true,  6,  true),
  ('100000000010', 'Promsvyazbank',         'Промсвязьбанк',         'Promsvyazbank',         false, 10, true),
  ('100000000020', 'Rosselkhozbank',        'Россельхозбанк',        'Rosselxozbank',         false, 11, true),
  ('100000000013', 'Sovcombank',            'Совкомбанк',            'Sovkombank',            false, 12, true),
  ('100000000012', 'Rosbank',               'Росбанк',               'Rosbank',               false, 13, true),
  ('100000000016', 'Pochta Bank',           'Почта Банк',            'Poçta Bank',            false, 14, true),
  ('100000000017', 'MTS Bank',              'МТС Банк',              'MTS Bank',              false, 15, true),
  ('100000000150', 'Yandex Bank',           'Яндекс Банк',           'Yandex Bank',           false, 16, true),
  ('100000000022', 'YooMoney',              'ЮMoney',                'YooMoney',              false, 17, true),
  ('100000000025', 'Credit Bank of Moscow', 'Московский кредитный банк', 'Moskva Kredit Bankı', false, 18, true),
  ('100000000026', 'Uralsib',               'Банк Уралсиб',          'Uralsib',               false, 19, true),
  ('100000000006', 'Ak Bars Bank',          'Ак Барс Банк',          'Ak Bars Bank',          false, 20, true),
  ('100000000014', 'Russian Standard Bank', 'Банк Русский Стандарт', 'Russkiy Standart Bank', false, 21, true),
  ('100000000018', 'OTP Bank',              'ОТП Банк',              'OTP Bank',              false, 22, true),
  ('100000000024', 'Home Credit Bank',      'Хоум Кредит Банк',      'Home Credit Bank',      false, 23, true),
  -- Otkritie joined VTB on 2025-01-01: kept for the record, no longer offered or accepted.
  ('100000000015', 'Otkritie',              'Банк Открытие',         'Otkritie',              false, 90, false)
) AS s(member_id, name_en, name_ru, name_az, is_popular, display_order, active)
ON CONFLICT (member_id) DO UPDATE SET
  name_en = EXCLUDED.name_en, name_ru = EXCLUDED.name_ru, name_az = EXCLUDED.name_az, logo_url = EXCLUDED.logo_url,
  deeplink_ios = EXCLUDED.deeplink_ios, deeplink_android = EXCLUDED.deeplink_android, is_popular = EXCLUDED.is_popular,
  display_order = EXCLUDED.display_order, active = EXCLUDED.active, updated_at = now();

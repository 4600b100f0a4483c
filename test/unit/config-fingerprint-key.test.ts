// loadConfig and CARD_FINGERPRINT_KEY: required with DATABASE_URL, except for the demo; the
// embedded default runs on the development key.
import t from 'tap';
import { DEV_FINGERPRINT_KEY, loadConfig } from '../../src/config.js';

const DB = 'postgres://u@127.0.0.1:5432/x';

t.test('embedded default and demo run on the development key', async (t) => {
  t.equal(loadConfig({}).cardFingerprintKey, DEV_FINGERPRINT_KEY);
  t.equal(loadConfig({ DATABASE_URL: DB, DEMO_MERCHANT: '1' }).cardFingerprintKey, DEV_FINGERPRINT_KEY);
  t.equal(loadConfig({ CARD_FINGERPRINT_KEY: 'k1' }).cardFingerprintKey, 'k1');
});

t.test('with DATABASE_URL a key of its own is required', async (t) => {
  t.equal(loadConfig({ DATABASE_URL: DB, CARD_FINGERPRINT_KEY: 'k2' }).cardFingerprintKey, 'k2');
  t.throws(() => loadConfig({ DATABASE_URL: DB }), /CARD_FINGERPRINT_KEY is not set.*openssl rand -hex 32/);
  t.throws(() => loadConfig({ DATABASE_URL: DB, CARD_FINGERPRINT_KEY: '' }), /CARD_FINGERPRINT_KEY is not set/);
  t.throws(() => loadConfig({ DATABASE_URL: DB, CARD_FINGERPRINT_KEY: DEV_FINGERPRINT_KEY }), /CARD_FINGERPRINT_KEY is the development key/);
  t.throws(() => loadConfig({ DATABASE_URL: DB, DEMO_MERCHANT: '0' }), /CARD_FINGERPRINT_KEY/);
});

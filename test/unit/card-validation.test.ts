// Card data rules: Luhn, brand, expiry, CVC and holder, each error naming its field and never
// carrying the number; the fingerprint is keyed.
import t from 'tap';
import { brandOf, cardFingerprint, cardSummary, checkCard, luhnValid } from '../../src/domain/card.js';

const NOW = Date.UTC(2026, 10, 21);
const good = { number: '4242 4242 4242 4242', exp_month: '12', exp_year: '30', cvc: '123' };

t.test('Luhn', async (t) => {
  for (const n of ['4242424242424242', '5555555555554444', '2200000000000004', '4000000000003220', '4000008400001629', '4000000000009995', '4000000000000069', '4000000000000002', '4000000000006975', '378282246310005']) t.ok(luhnValid(n), n);
  for (const n of ['4242424242424241', '1234567812345678', '', 'abcd']) t.notOk(luhnValid(n), n);
});

t.test('brands', async (t) => {
  t.equal(brandOf('4242424242424242'), 'visa');
  t.equal(brandOf('5555555555554444'), 'mastercard');
  t.equal(brandOf('2221000000000009'), 'mastercard');
  t.equal(brandOf('2200000000000004'), 'mir');
  t.equal(brandOf('378282246310005'), 'amex');
});

t.test('a good card passes with 2- and 4-digit years and numeric fields', async (t) => {
  for (const c of [good, { ...good, exp_year: '2030' }, { ...good, exp_month: 12, exp_year: 2030 }, { ...good, number: '4242-4242-4242-4242', holder: 'Ann Lee' }]) {
    const r = checkCard(c, NOW);
    t.ok(r.ok, JSON.stringify(c));
    if (r.ok) { t.equal(r.card.pan, '4242424242424242'); t.equal(r.card.expYear, 2030); t.equal(r.card.expMonth, 12); }
  }
  t.ok(checkCard({ ...good, exp_month: '11', exp_year: '26' }, NOW).ok, 'this month is still valid');
  t.ok(checkCard({ number: '378282246310005', exp_month: '1', exp_year: '29', cvc: '1234' }, NOW).ok, 'amex takes 4 digits');
});

const BAD: [string, Record<string, unknown>, string, string][] = [
  ['bad Luhn', { number: '4242424242424241' }, 'card_number_invalid', 'number'],
  ['letters', { number: '4242abcd42424242' }, 'card_number_invalid', 'number'],
  ['too short', { number: '42424242' }, 'card_number_invalid', 'number'],
  ['month 13', { exp_month: '13' }, 'card_expiry_invalid', 'exp_month'],
  ['month 0', { exp_month: '0' }, 'card_expiry_invalid', 'exp_month'],
  ['month text', { exp_month: 'ab' }, 'card_expiry_invalid', 'exp_month'],
  ['past year', { exp_year: '25' }, 'card_expiry_invalid', 'exp_year'],
  ['last month', { exp_month: '10', exp_year: '2026' }, 'card_expiry_invalid', 'exp_year'],
  ['far future', { exp_year: '2099' }, 'card_expiry_invalid', 'exp_year'],
  ['cvc 2 digits', { cvc: '12' }, 'card_cvc_invalid', 'cvc'],
  ['cvc 4 digits on visa', { cvc: '1234' }, 'card_cvc_invalid', 'cvc'],
  ['cvc letters', { cvc: 'abc' }, 'card_cvc_invalid', 'cvc'],
  ['holder with digits', { holder: 'Ann 4242' }, 'card_holder_invalid', 'holder'],
  ['holder too long', { holder: 'a'.repeat(101) }, 'card_holder_invalid', 'holder'],
];
for (const [name, patch, code, param] of BAD) {
  t.test(name, async (t) => {
    const r = checkCard({ ...good, ...patch } as never, NOW);
    t.notOk(r.ok);
    if (!r.ok) { t.equal(r.code, code); t.equal(r.param, param); }
    t.notMatch(JSON.stringify(r), /4242424242/, 'the number is never echoed');
  });
}

t.test('fingerprint is an HMAC under the key: stable, key-dependent, not the number', async (t) => {
  const a = cardFingerprint('4242424242424242', 'k1');
  t.match(a, /^[0-9a-f]{64}$/);
  t.equal(a, cardFingerprint('4242424242424242', 'k1'));
  t.not(a, cardFingerprint('4242424242424242', 'k2'));
  t.not(a, cardFingerprint('5555555555554444', 'k1'));
  const r = checkCard(good, NOW);
  if (!r.ok) throw new Error('card');
  const s = cardSummary(r.card, 'k1', 'US');
  t.same(s, { brand: 'visa', last4: '4242', country: 'US', expMonth: 12, expYear: 2030, fingerprint: a });
  t.notMatch(JSON.stringify(s), /4242424242|123/);
});

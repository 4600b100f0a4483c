// Small pure rules: fees, ids, date filters, language choice, request hashing.
import t from 'tap';
import { computeFee, isValidAmount, MAX_AMOUNT } from '../../src/domain/money.js';
import { paymentId, PAYMENT_ID_RE, shardOf, requestId } from '../../src/domain/ids.js';
import { parseDateBound } from '../../src/domain/date-filter.js';
import { pickLang } from '../../src/errors.js';
import { requestHash } from '../../src/http/idempotency.js';
import { applyPaymentRules } from '../../src/domain/payment-rules.js';

t.test('fees: basis points rounded half up, plus fixed, never above the amount', async (t) => {
  t.equal(computeFee(10000, { feeBps: 250, feeFixed: 0 }), 250);
  t.equal(computeFee(1, { feeBps: 5000, feeFixed: 0 }), 1); // 0.5 rounds up
  t.equal(computeFee(3, { feeBps: 1000, feeFixed: 0 }), 0); // 0.3 rounds down
  t.equal(computeFee(100, { feeBps: 0, feeFixed: 500 }), 100);
  t.equal(computeFee(MAX_AMOUNT, { feeBps: 10000, feeFixed: 0 }), MAX_AMOUNT);
});

t.test('amount bounds', async (t) => {
  for (const ok of [1, 4900, MAX_AMOUNT]) t.ok(isValidAmount(ok));
  for (const bad of [0, -1, 1.5, MAX_AMOUNT + 1, '5', NaN, null]) t.notOk(isValidAmount(bad));
});

t.test('ids', async (t) => {
  const ids = new Set(Array.from({ length: 2000 }, () => paymentId(Date.UTC(2026, 10, 21))));
  t.equal(ids.size, 2000);
  for (const id of ids) t.match(id, PAYMENT_ID_RE);
  t.match([...ids][0], /^EXZ-20261121-/);
  t.match(requestId(), /^req_[0-9A-Za-z]+$/);
  const counts = [0, 0];
  for (const id of ids) counts[shardOf(id, 2)]++;
  t.ok(counts[0] > 800 && counts[1] > 800, `shards balanced: ${counts}`);
  t.equal(shardOf('same', 7), shardOf('same', 7));
});

t.test('date bounds', async (t) => {
  t.same(parseDateBound('2026-11-21'), { start: Date.UTC(2026, 10, 21), end: Date.UTC(2026, 10, 22) });
  t.same(parseDateBound('2026-11-21 10:05'), { start: Date.UTC(2026, 10, 21, 10, 5), end: Date.UTC(2026, 10, 21, 10, 6) });
  t.same(parseDateBound('2026-11-21T10:05'), parseDateBound('2026-11-21 10:05'));
  for (const bad of ['2026-02-29', '2026-13-01', '2026-1-1', '2026-11-21 24:00', '2026-11-21 10:60', 'x', '']) t.equal(parseDateBound(bad), null, bad);
  t.ok(parseDateBound('2028-02-29'), 'leap day');
});

t.test('Accept-Language', async (t) => {
  t.equal(pickLang(undefined), 'en');
  t.equal(pickLang('ru'), 'ru');
  t.equal(pickLang('az-Latn-AZ'), 'az');
  t.equal(pickLang('de, ru;q=0.5, az;q=0.8'), 'az');
  t.equal(pickLang('fr'), 'en');
  t.equal(pickLang('ru;q=0'), 'en');
});

t.test('request hash ignores key order and spacing but not values or endpoint', async (t) => {
  const a = requestHash('POST', '/p', { a: 1, b: { c: [1, 2], d: 'x' } });
  t.equal(a, requestHash('POST', '/p', { b: { d: 'x', c: [1, 2] }, a: 1 }));
  t.not(a, requestHash('POST', '/p', { a: 2, b: { c: [1, 2], d: 'x' } }));
  t.not(a, requestHash('POST', '/q', { a: 1, b: { c: [1, 2], d: 'x' } }));
  t.not(requestHash('POST', '/p', { c: [1, 2] }), requestHash('POST', '/p', { c: [2, 1] }));
});

t.test('payment rules beyond the schema', async (t) => {
  const m = { defaultCurrency: 'AZN', currencies: ['AZN', 'RUB'] };
  t.match(applyPaymentRules({ amount: 1, currency: 'usd' }, m, 'api'), { ok: false, code: 'currency_not_enabled' });
  t.match(applyPaymentRules({ amount: 1, method: 'sbp' }, m, 'api'), { ok: false, code: 'method_not_available' });
  t.match(applyPaymentRules({ amount: 1, method: 'sbp', currency: 'rub' }, m, 'api'), { ok: true, value: { currency: 'RUB', method: 'sbp' } });
  t.match(applyPaymentRules({ amount: 1, return_url: 'https://192.168.1.1/x' }, m, 'api'), { ok: false, code: 'return_url_invalid' });
  t.match(applyPaymentRules({ amount: 1, return_url: 'https://shop.example/ok' }, m, 'api'), { ok: true });
  t.match(applyPaymentRules({ amount: 1 }, m, 'api'), { ok: true, value: { currency: 'AZN', method: null } });
  t.match(applyPaymentRules({ amount: 1, method: 'sbp' }, m, 'api'), { detail: 'sbp works only with RUB' }, 'the detail is about the method sent');
  // Merchant API return_url: a loopback URL only with loopbackReturnUrl (test mode on the embedded default), never a private or public http one.
  for (const url of ['http://localhost:3000/back', 'http://127.0.0.1/b', 'https://localhost/b', 'http://[::1]:8080/b']) {
    t.match(applyPaymentRules({ amount: 1, return_url: url }, m, 'api'), { ok: false, code: 'return_url_invalid' }, `${url} by default`);
    t.match(applyPaymentRules({ amount: 1, return_url: url }, m, 'api', { loopbackReturnUrl: true }), { ok: true, value: { returnUrl: url } }, `${url} with loopbackReturnUrl`);
  }
  for (const url of ['http://shop.example/b', 'http://10.0.0.1/b', 'http://169.254.169.254/']) {
    t.match(applyPaymentRules({ amount: 1, return_url: url }, m, 'api', { loopbackReturnUrl: true }), { ok: false, code: 'return_url_invalid', detail: /http:\/\/localhost is accepted too/ }, `${url} never`);
  }
});

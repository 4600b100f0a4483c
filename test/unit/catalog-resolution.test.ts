// The three-layer method catalog: a method is shown only when all of CMC, MCA and MCS allow it,
// within its amount and currency limits, in display order.
import t from 'tap';
import { resolveMethods, type Capability, type CatalogLayers } from '../../src/domain/catalog.js';
import { METHOD_CODES, type MethodCode } from '../../src/domain/methods.js';

const cap = (method: MethodCode, order: number, extra: Partial<Capability> = {}): Capability => ({
  method, enabled: true, renderMode: 'inline_form', displayOrder: order, supportsRecurring: false, supportsRefund: true,
  minAmount: null, maxAmount: null, currencies: [], ...extra,
});
const CMC = METHOD_CODES.map((m, i) => cap(m, (i + 1) * 10, m === 'sbp' ? { currencies: ['RUB'], minAmount: 100, renderMode: 'qr_code' } : m === 'yoomoney' ? { maxAmount: 1000 } : {}));
const all: CatalogLayers = { cmc: CMC, mca: [], mcs: [] };
const names = (l: CatalogLayers, amount = 500, currency = 'RUB', only: MethodCode | null = null) => resolveMethods(l, { amount, currency, only }).map((m) => m.method);

t.test('no MCA rows: the connector capability; no MCS rows: all on, connector order', async (t) => {
  t.same(names(all), [...METHOD_CODES]);
});

for (const m of METHOD_CODES) {
  t.test(`${m} off at any single layer is hidden`, async (t) => {
    t.notOk(names({ ...all, cmc: CMC.map((c) => (c.method === m ? { ...c, enabled: false } : c)) }).includes(m), 'CMC');
    t.notOk(names({ ...all, mca: METHOD_CODES.filter((x) => x !== m).map((x) => ({ method: x, enabled: true })) }).includes(m), 'MCA without a row');
    t.notOk(names({ ...all, mca: METHOD_CODES.map((x) => ({ method: x, enabled: x !== m })) }).includes(m), 'MCA off');
    t.notOk(names({ ...all, mcs: [{ method: m, enabled: false, displayOrder: null }] }).includes(m), 'MCS off');
    t.equal(names({ ...all, mcs: [{ method: m, enabled: false, displayOrder: null }] }).length, METHOD_CODES.length - 1, 'the others stay');
  });
}

t.test('amount, currency and only filters; MCS display order wins', async (t) => {
  t.notOk(names(all, 500, 'AZN').includes('sbp'), 'sbp needs RUB');
  t.notOk(names(all, 50).includes('sbp'), 'below sbp minimum');
  t.notOk(names(all, 5000).includes('yoomoney'), 'above yoomoney maximum');
  t.same(names(all, 500, 'RUB', 'sbp'), ['sbp']);
  t.same(names(all, 500, 'AZN', 'sbp'), []);
  const reordered = names({ ...all, mcs: [{ method: 'google_pay', enabled: true, displayOrder: 1 }, { method: 'card', enabled: true, displayOrder: 999 }] });
  t.equal(reordered[0], 'google_pay');
  t.equal(reordered[reordered.length - 1], 'card');
  t.equal(resolveMethods(all, { amount: 500, currency: 'RUB', only: null }).find((x) => x.method === 'sbp')?.renderMode, 'qr_code');
});

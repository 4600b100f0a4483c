// The operator contract: exact shapes of merchants and API keys.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);

t.test('merchant defaults and shape', async (t) => {
  const r = await s.admin('POST', '/internal/merchants', { name: 'Shop' });
  t.equal(r.status, 201);
  t.match(r.body, { id: /^mer_/, name: 'Shop', default_currency: 'AZN', currencies: ['AZN', 'RUB', 'USD', 'EUR'], api_enabled: true });
});

t.test('every key kind and mode has its prefix; the key is shown once', async (t) => {
  const m = await s.admin('POST', '/internal/merchants', { name: 'Keys' });
  const want: Record<string, string> = { merchant: 'svc', secret: 'sk', restricted: 'rk', publishable: 'pk' };
  for (const [kind, prefix] of Object.entries(want)) {
    for (const mode of ['test', 'live']) {
      const r = await s.admin('POST', `/internal/merchants/${m.body.id}/api-keys`, { kind, mode, ...(kind === 'restricted' ? { permissions: ['payments:read'] } : {}) });
      t.equal(r.status, 201, r.text);
      t.match(r.body.key, new RegExp(`^${prefix}_${mode}_[0-9A-Za-z]{32}$`));
      t.match(r.body, { id: /^key_/, kind, mode });
    }
  }
  const list = await s.admin('GET', `/internal/merchants/${m.body.id}/api-keys`);
  t.equal(list.body.data.length, 8);
  t.notOk(list.text.includes('"key":'), 'listing never shows a key');
  const { rows } = await s.db.query('SELECT key_hash FROM api_keys');
  t.ok(rows.every((r: { key_hash: string }) => /^[0-9a-f]{64}$/.test(r.key_hash)), 'only hashes are stored');
});

t.test('bad operator input gets the envelope', async (t) => {
  const cases: [string, unknown, string, string][] = [
    ['POST', { name: '' }, 'parameter_invalid', 'name'],
    ['POST', { name: 'x', currencies: ['AZN'], default_currency: 'USD' }, 'parameter_invalid', 'default_currency'],
    ['POST', { name: 'x', fee_percent: 120 }, 'parameter_invalid', 'fee_percent'],
    ['POST', { name: 'x', colour: 'red' }, 'parameter_unknown', 'colour'],
  ];
  for (const [, body, code, param] of cases) {
    const r = await s.admin('POST', '/internal/merchants', body);
    t.equal(r.status, 422, JSON.stringify(body));
    t.equal(r.body.error.code, code);
    t.equal(r.body.error.param, param);
  }
  const m = await s.admin('POST', '/internal/merchants', { name: 'y' });
  const badKey = await s.admin('POST', `/internal/merchants/${m.body.id}/api-keys`, { kind: 'root', mode: 'test' });
  t.equal(badKey.body.error.param, 'kind');
  t.equal((await s.admin('GET', '/internal/merchants/mer_nope')).status, 404);
  t.equal((await s.admin('DELETE', `/internal/merchants/${m.body.id}/api-keys/key_nope`)).status, 404);
});

t.test('fees from the merchant settings give fee and net', async (t) => {
  const m = await s.merchant({ fee_percent: 2.5, fee_fixed: 10 });
  const r = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 10000 } });
  t.equal(r.body.fee, 260);
  t.equal(r.body.net, 9740);
  await s.admin('PATCH', `/internal/merchants/${m.id}`, { fee_percent: 0, fee_fixed: 0 });
  const r2 = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 10000 } });
  t.equal(r2.body.fee, 0, 'new settings apply to new payments');
  const again = await s.request('GET', `/api/v2/payments/${r.body.id}`, { key: m.key });
  t.equal(again.body.fee, 260, 'existing payments keep their fee');
});

t.test('unknown routes and wrong methods', async (t) => {
  const g = await s.request('GET', '/v2/nothing');
  t.equal(g.status, 404);
  t.equal(g.body.error.code, 'ROUTE_NOT_FOUND', 'gateway envelope');
  const mr = await s.request('GET', '/api/v2/nothing');
  t.equal(mr.body.error.code, 'route_not_found', 'merchant envelope');
  const wrong = await s.request('DELETE', '/api/v2/payments');
  t.equal(wrong.status, 405);
  t.match(wrong.headers.get('allow'), /POST/);
});

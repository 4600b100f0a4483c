// Metadata limits of both APIs. The merchant API enforces exactly its spec's ("string map, up to 20
// keys and 4 KB"), and a refusal names the limit exceeded. The gateway API (spec: "string values
// only", no limit shown) keeps the limits it had: keys up to 40 characters, values up to 500, 20 keys.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'RUB'] });
const pay = (metadata: unknown, headers: Record<string, string> = {}) => s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100, metadata }, headers });
const keys = (n: number, value = 'v') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${String(i).padStart(2, '0')}`, value]));

t.test('spec: metadata "string map, up to 20 keys and 4 KB, returned as is": long values and keys within 4 KB are accepted', async (t) => {
  const long = { note: 'я'.repeat(2000), ['key '.repeat(20)]: 'x'.repeat(10) }; // 4 + 4000 + 80 + 10 bytes = 4094
  const r = await pay(long);
  t.equal(r.status, 201, r.text);
  t.same(r.body.metadata, long, 'returned as is');
  t.same((await s.request('GET', `/api/v2/payments/${r.body.id}`, { key: m.key })).body.metadata, long);
  const twenty = await pay(keys(20, 'x'.repeat(200)));
  t.equal(twenty.status, 201, `exactly 20 keys: ${twenty.text.slice(0, 200)}`);
  const exactly = await pay({ a: 'b'.repeat(4095) });
  t.equal(exactly.status, 201, 'exactly 4096 bytes of keys and values');
});

t.test('spec: metadata "up to 20 keys": 21 keys answer metadata_invalid naming the key limit, not 4 KB', async (t) => {
  const r = await pay(keys(21));
  t.equal(r.status, 422);
  t.same([r.body.error.code, r.body.error.param], ['metadata_invalid', 'metadata']);
  t.match(r.body.error.message, /21 keys, more than 20/);
  t.notMatch(r.body.error.message, /bytes/);
});

t.test('spec: metadata "and 4 KB": 4097 bytes answer metadata_invalid naming the 4 KB limit, counted in UTF-8 bytes', async (t) => {
  const r = await pay({ a: 'b'.repeat(4096) });
  t.equal(r.status, 422, r.text);
  t.same([r.body.error.code, r.body.error.param], ['metadata_invalid', 'metadata']);
  t.match(r.body.error.message, /4097 bytes of keys and values, more than 4 KB = 4096 bytes/);
  t.notMatch(r.body.error.message, /21 keys|more than 20/);
  const cyrillic = await pay({ k: 'ж'.repeat(2048) }, { 'accept-language': 'ru' }); // 1 + 4096 bytes
  t.equal(cyrillic.status, 422, 'a two-byte letter counts twice');
  t.match(cyrillic.body.error.message, /Metadata.*4097 bytes/);
  t.equal((await s.db.query('SELECT count(*)::int AS n FROM payments WHERE merchant_id = $1 AND amount = 100 AND metadata ? $2', [m.id, 'k'])).rows[0].n, 0, 'nothing refused was stored');
});

t.test('the gateway keeps its own metadata limits (values up to 500 characters, keys up to 40)', async (t) => {
  const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;
  const session = (metadata: unknown) => s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 100, currency: 'RUB', metadata } });
  const ok = await session({ cart: 'x'.repeat(500) });
  t.equal(ok.status, 200, ok.text);
  for (const [name, metadata, param] of [
    ['a value of 501 characters', { cart: 'x'.repeat(501) }, 'metadata.cart'],
    ['a key of 41 characters', { ['k'.repeat(41)]: 'v' }, `metadata.${'k'.repeat(41)}`],
    ['21 keys', keys(21), 'metadata'],
  ] as const) {
    const r = await session(metadata);
    t.equal(r.status, 400, name);
    t.same([r.body.error?.code, r.body.error?.param], ['VALIDATION_ERROR', param], name);
  }
});

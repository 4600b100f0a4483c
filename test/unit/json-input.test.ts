// The one JSON parse and the one string check: depth counted on the raw text (strings and escapes
// do not count), prototype keys refused at any depth, null-prototype objects, NUL and lone
// surrogates found in keys and values.
import t from 'tap';
import { findBadInput, isCleanString, jsonTooDeep, MAX_JSON_DEPTH, parseJsonBody } from '../../src/api/json-input.js';
import { compile, dropNulls } from '../../src/api/validate.js';
import { CreatePaymentRequest, CREATE_PAYMENT_FIELD_CODES } from '../../src/api/merchant-payments.js';

const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);

t.test('depth is counted on the text, outside strings', async (t) => {
  t.equal(jsonTooDeep(nest(MAX_JSON_DEPTH)), false, 'exactly the limit passes');
  t.equal(jsonTooDeep(nest(MAX_JSON_DEPTH + 1)), true, 'one more is refused');
  t.equal(jsonTooDeep(`{"a":"${'['.repeat(1000)}"}`), false, 'brackets inside a string do not count');
  t.equal(jsonTooDeep(`{"a":"\\"${'{'.repeat(100)}"}`), false, 'an escaped quote does not end the string');
  t.equal(jsonTooDeep(`{"a":"\\\\"${'{'.repeat(40)}`), true, 'an escaped backslash does end it');
  t.equal(jsonTooDeep(nest(1_000_000)), true, 'a million levels are scanned without recursion');
});

t.test('parseJsonBody: bounded, no prototype keys, null-prototype objects', async (t) => {
  t.same(parseJsonBody(nest(40)), { ok: false, problem: 'too_deep' });
  t.same(parseJsonBody('{"a":'), { ok: false, problem: 'json_invalid' });
  t.same(parseJsonBody('{"__proto__":{"amount":5}}'), { ok: false, problem: 'key_forbidden', param: '__proto__' });
  t.same(parseJsonBody('{"a":[{"b":{"constructor":1}}]}'), { ok: false, problem: 'key_forbidden', param: 'a.0.b.constructor' });
  t.same(parseJsonBody('{"prototype":1}'), { ok: false, problem: 'key_forbidden', param: 'prototype' });
  const ok = parseJsonBody('{"amount":100,"customer":{"name":"x"},"list":[{"k":1}]}');
  t.ok(ok.ok);
  const v = (ok as { value: any }).value;
  t.equal(Object.getPrototypeOf(v), null);
  t.equal(Object.getPrototypeOf(v.customer), null);
  t.equal(Object.getPrototypeOf(v.list[0]), null);
  t.equal(v.amount, 100);
  t.equal(JSON.stringify(v), '{"amount":100,"customer":{"name":"x"},"list":[{"k":1}]}');
});

t.test('isCleanString and findBadInput', async (t) => {
  t.ok(isCleanString('plain текст 🙂'), 'a surrogate pair is fine');
  t.notOk(isCleanString('a\u0000b'));
  t.notOk(isCleanString('\ud800'));
  t.notOk(isCleanString('x\udc00'));
  t.notOk(isCleanString('\udc00\ud800'), 'a reversed pair is two lone surrogates');
  t.same(findBadInput({ a: ['ok', { b: 'x\u0000' }] }), { kind: 'string_invalid', param: 'a.1.b', top: 'a' });
  t.same(findBadInput({ m: { 'k\ud800': 'v' } }), { kind: 'string_invalid', param: 'm.k\ufffd', top: 'm' });
  t.equal(findBadInput({ a: 1, b: [true, null, 'fine'] }), null);
});

t.test('the validator: field codes for unclean strings, metadata limits, no prototype reach in dropNulls', async (t) => {
  const v = compile(CreatePaymentRequest, CREATE_PAYMENT_FIELD_CODES);
  const r1 = v({ amount: 1, order_id: 'a\u0000' });
  t.same(!r1.ok && [r1.failure.code, r1.failure.param], ['order_id_invalid', 'order_id']);
  // The merchant spec's limits are "up to 20 keys and 4 KB" (issue 23): a long key within them is fine, a 21st key is not.
  const r2 = v({ amount: 1, metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) });
  t.same(!r2.ok && r2.failure.code, 'metadata_invalid');
  t.ok(v({ amount: 1, metadata: { ['k'.repeat(41)]: 'v' } }).ok, 'a 41-character key is within the spec');
  const r3 = v({ amount: 1, metadata: { '': 'v' } });
  t.same(!r3.ok && r3.failure.code, 'metadata_invalid');
  t.ok(v({ amount: 1, metadata: { ['k'.repeat(40)]: 'v' } }).ok);
  const hostile = JSON.parse('{"amount":100,"__proto__":{"description":"x"}}');
  const dropped = dropNulls(hostile) as Record<string, unknown>;
  t.equal(Object.getPrototypeOf(dropped), null, 'the copy has no prototype to reach');
  t.equal(dropped.description === 'x', false, 'no field is inherited');
  const r4 = v(dropped);
  t.same(!r4.ok && [r4.failure.code, r4.failure.param], ['parameter_unknown', '__proto__']);
});

t.test('findBadInput: the quick walk finds exactly what the naming walk finds (random bodies)', async (t) => {
  // A seeded generator: the same bodies on every run.
  let seed = 42;
  const rnd = (n: number) => { // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) % n;
  };
  const words = ['a', 'amount', 'k\u0000', 'x\ud800', '\udc00y', 'ok 🙂', '__proto__', 'constructor', 'prototype', 'meta'];
  const gen = (depth: number): unknown => {
    const r = rnd(10);
    if (depth === 0 || r < 4) return [rnd(1000), null, true, words[rnd(words.length)]][rnd(4)];
    if (r < 7) return Array.from({ length: rnd(4) }, () => gen(depth - 1));
    const o: Record<string, unknown> = Object.create(null);
    for (let i = rnd(4); i > 0; i--) o[words[rnd(words.length)]] = gen(depth - 1);
    return o;
  };
  const bad = (v: unknown, strings: boolean): boolean => {
    if (typeof v === 'string') return strings && !isCleanString(v);
    if (v === null || typeof v !== 'object') return false;
    if (Array.isArray(v)) return v.some((x) => bad(x, strings));
    return Object.keys(v).some((k) => ['__proto__', 'constructor', 'prototype'].includes(k) || (strings && !isCleanString(k)) || bad((v as Record<string, unknown>)[k], strings));
  };
  let found = 0;
  let clean = 0;
  for (let i = 0; i < 3000; i++) {
    const v = gen(4);
    for (const strings of [true, false]) {
      const got = findBadInput(v, { strings });
      if (got === null) clean++; else found++;
      if ((got !== null) !== bad(v, strings)) { t.fail(`body ${i} (strings ${strings}): ${JSON.stringify(v)} gave ${JSON.stringify(got)}`); return; }
    }
  }
  t.ok(found > 500 && clean > 500, `both kinds were drawn (${found} bad, ${clean} clean)`);
});

t.test('parseJsonBody copies own keys only: a key put on Object.prototype never joins a body', async (t) => {
  Object.defineProperty(Object.prototype, 'injected', { value: 'x', enumerable: true, configurable: true });
  try {
    const r = parseJsonBody('{"a":{"b":1},"c":[{"d":2}]}');
    t.ok(r.ok);
    const v = r.ok ? (r.value as Record<string, Record<string, unknown> & unknown[]>) : null;
    t.same(Object.keys(v!), ['a', 'c'], 'top level');
    t.same(Object.keys(v!.a), ['b'], 'nested object');
    t.same(Object.keys((v!.c as unknown as Record<string, unknown>[])[0]), ['d'], 'object in an array');
    t.equal(Object.getPrototypeOf(v!.a), null, 'null prototype');
  } finally {
    delete (Object.prototype as Record<string, unknown>).injected;
  }
});

// Logs never carry keys, secrets, card numbers or CVC: every card-like field name, in any spelling,
// is redacted at the top level and in nested objects and arrays (through child loggers too), other
// fields stay, and the logged object itself is not modified.
import t from 'tap';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { CARD_FIELDS, MAX_DEPTH, redactOptions } from '../../src/log.js';

function capture() {
  let out = '';
  const sink = new Writable({ write(chunk, _e, cb) { out += chunk.toString(); cb(); } });
  const log = pino({ ...redactOptions }, sink);
  return { log, out: () => out };
}

t.test('redacted fields', async (t) => {
  const { log, out } = capture();
  log.info({
    authorization: 'Bearer svc_test_abc', headers: { authorization: 'Bearer svc_live_xyz' },
    card: { number: '4242424242424242', cvc: '123', last4: '4242' }, payload: { card: { number: '4000000000000002', cvc: '999' } },
    key: 'sk_test_123', secret: 'whsec_1', token: 'adm_1', databaseUrl: 'postgres://u:p@h/db', requestId: 'req_1',
  }, 'hello');
  for (const leaked of ['svc_test_abc', 'svc_live_xyz', '4242424242424242', '"123"', '4000000000000002', '999', 'sk_test_123', 'whsec_1', 'adm_1', 'u:p@h']) {
    t.notOk(out().includes(leaked), `no ${leaked}`);
  }
  t.ok(out().includes('"last4":"4242"'), 'non-secret fields stay');
  t.ok(out().includes('req_1'));
});

const SPELLINGS = [
  'pan', 'PAN', 'number', 'card_number', 'cardNumber', 'CardNumber', 'card-number', 'cardnumber', 'card_no', 'primary_account_number',
  'cvc', 'CVC', 'cvc2', 'cvv', 'CVV', 'cvv2', 'csc', 'cvn', 'security_code', 'securityCode', 'card_security_code', 'track2', 'track_data', 'pin',
];

t.test('every card-like field name, at the top, nested and in arrays', async (t) => {
  for (const f of ['pan', 'cardnumber', 'number', 'cvc', 'cvv', 'cvv2', 'securitycode']) t.ok(CARD_FIELDS.includes(f), `${f} is a card field`);
  for (const field of SPELLINGS) {
    const { log, out } = capture();
    const v = (where: string) => `SECRET-${where}-${field}`;
    const deep: Record<string, unknown> = { [field]: v('deepest') };
    let nest = deep;
    for (let d = 0; d < MAX_DEPTH - 1; d++) nest = { inner: nest };
    const logged = {
      [field]: v('top'),
      outer: { [field]: v('one'), inner: { [field]: v('two'), more: { [field]: v('three') } } },
      list: [{ [field]: v('array') }, [{ card: { [field]: v('nested-array') } }]],
      nest,
      brand: 'visa', last4: '4242',
    };
    const before = JSON.stringify(logged);
    log.info(logged, 'card data');
    for (const where of ['top', 'one', 'two', 'three', 'array', 'nested-array', 'deepest']) t.notOk(out().includes(v(where)), `${field} (${where}) is redacted`);
    t.ok(out().includes('"brand":"visa"') && out().includes('"last4":"4242"'), `${field}: other fields stay`);
    t.equal(JSON.stringify(logged), before, 'the caller\'s object is not modified');
  }
});

t.test('child loggers redact too; names that only look alike stay', async (t) => {
  const { log, out } = capture();
  log.child({ shard: 1, paymentId: 'EXZ-1' }).info({ card: { pan: '5555555555554444' }, numbers: 3, token_type: 'bearer', phone_number: '+79001234567' }, 'child');
  t.notOk(out().includes('5555555555554444'), 'a pan logged through a child logger is redacted');
  t.ok(out().includes('"paymentId":"EXZ-1"') && out().includes('"numbers":3') && out().includes('"token_type":"bearer"') && out().includes('+79001234567'));
});

t.test('errors are still serialised', async (t) => {
  const { log, out } = capture();
  log.error({ err: new Error('boom') }, 'failed');
  t.match(out(), /"err":\{"type":"Error","message":"boom"/);
});

// Logs never carry keys, secrets, card numbers or CVC.
import t from 'tap';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { REDACT_PATHS } from '../../src/log.js';

t.test('redacted paths', async (t) => {
  let out = '';
  const sink = new Writable({ write(chunk, _e, cb) { out += chunk.toString(); cb(); } });
  const log = pino({ redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, sink);
  log.info({
    authorization: 'Bearer svc_test_abc', headers: { authorization: 'Bearer svc_live_xyz' },
    card: { number: '4242424242424242', cvc: '123', last4: '4242' }, payload: { card: { number: '4000000000000002', cvc: '999' } },
    key: 'sk_test_123', secret: 'whsec_1', token: 'adm_1', databaseUrl: 'postgres://u:p@h/db', requestId: 'req_1',
  }, 'hello');
  for (const leaked of ['svc_test_abc', 'svc_live_xyz', '4242424242424242', '"123"', '4000000000000002', '999', 'sk_test_123', 'whsec_1', 'adm_1', 'u:p@h']) {
    t.notOk(out.includes(leaked), `no ${leaked}`);
  }
  t.ok(out.includes('"last4":"4242"'), 'non-secret fields stay');
  t.ok(out.includes('req_1'));
});

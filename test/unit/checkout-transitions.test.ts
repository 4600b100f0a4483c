// Every (checkout state, command) pair of the checkout state machine, and the payment command a
// settled attempt yields.
import t from 'tap';
import { checkoutStep, OPEN, sessionStatus, type CheckoutCommand, type CheckoutState } from '../../src/domain/checkout.js';
import { PAYMENT_STATUSES } from '../../src/domain/payment.js';

const card = { brand: 'visa', last4: '3220', country: 'GB', expMonth: 12, expYear: 2030, fingerprint: 'fp' };
const qr = { type: 'show_qr' as const, qr_image_url: null, qr_raw_payload: 'p', deeplink: 'd' };
const STATES: Record<string, CheckoutState> = {
  open: OPEN,
  three_ds: { ...OPEN, method: 'card', awaiting: 'three_ds', ref: 'r1', attempts: 1, card, token: 'tok', nextAction: { type: 'three_ds_challenge', acs_url: 'https://x/acs', creq: 'c' } },
  sbp: { ...OPEN, method: 'sbp', awaiting: 'sbp', ref: 'r1', attempts: 1, nextAction: qr },
  wallet: { ...OPEN, method: 'tpay', awaiting: 'wallet', ref: 'r1', attempts: 1, nextAction: { type: 'redirect', redirect_url: 'https://x/w' } },
  poll: { ...OPEN, method: 'sbp', awaiting: 'poll', ref: 'r1', attempts: 1, nextAction: { type: 'poll', hint: 'awaiting_payment' } },
};
const COMMANDS: Record<string, CheckoutCommand> = {
  await_3ds: { type: 'await', method: 'card', awaiting: 'three_ds', ref: 'r2', action: { type: 'three_ds_challenge', acs_url: 'https://x/acs', creq: 'c' }, card },
  await_qr: { type: 'await', method: 'sbp', awaiting: 'sbp', ref: 'r2', action: qr },
  settle_direct_ok: { type: 'settle', method: 'card', ref: null, outcome: 'succeeded', card },
  settle_direct_fail: { type: 'settle', method: 'card', ref: null, outcome: 'failed', code: 'insufficient_funds' },
  callback_ok: { type: 'settle', method: null, ref: 'r1', outcome: 'succeeded' },
  callback_fail: { type: 'settle', method: null, ref: 'r1', outcome: 'failed', code: 'authentication_failed' },
  callback_stale: { type: 'settle', method: null, ref: 'old', outcome: 'succeeded' },
  expire: { type: 'expire' },
  cancel: { type: 'cancel' },
};
// Expected: awaiting of the next checkout + payment command type, or the error code.
const AWAITED = ['three_ds', 'sbp', 'wallet', 'poll'];
function expected(state: string, cmd: string): string {
  if (cmd === 'await_3ds') return 'three_ds/-';
  if (cmd === 'await_qr') return 'sbp/-';
  if (cmd === 'settle_direct_ok') return 'null/succeed';
  if (cmd === 'settle_direct_fail') return 'null/fail';
  if (cmd === 'expire') return 'null/expire';
  // The customer may be paying in a bank or wallet app: that attempt decides first. A 3-D Secure challenge may be abandoned.
  if (cmd === 'cancel') return ['sbp', 'wallet', 'poll'].includes(state) ? 'checkout_not_cancellable' : 'null/cancel';
  if (cmd === 'callback_stale') return 'checkout_action_stale';
  return AWAITED.includes(state) ? `null/${cmd === 'callback_ok' ? 'succeed' : 'fail'}` : 'checkout_action_stale';
}

for (const [sname, state] of Object.entries(STATES)) {
  for (const [cname, cmd] of Object.entries(COMMANDS)) {
    t.test(`${sname} + ${cname}`, async (t) => {
      const frozen = JSON.stringify(state);
      const r = checkoutStep('pending', state, cmd);
      const got = r.ok ? `${r.checkout.awaiting}/${r.payment?.type ?? '-'}` : r.code;
      t.equal(got, expected(sname, cname));
      t.equal(JSON.stringify(state), frozen, 'input not mutated');
      for (const status of PAYMENT_STATUSES.filter((s) => s !== 'pending')) {
        const closed = checkoutStep(status, state, cmd);
        t.same(closed, { ok: false, code: 'checkout_closed' }, `${status} is closed`);
      }
    });
  }
}

t.test('effects: method, card, token and attempts', async (t) => {
  const a = checkoutStep('pending', OPEN, COMMANDS.await_3ds);
  if (!a.ok) throw new Error(a.code);
  t.equal(a.checkout.method, 'card');
  t.equal(a.checkout.attempts, 1);
  t.same(a.checkout.card, card);
  t.equal(sessionStatus('pending', a.checkout), 'requires_action');
  const ok = checkoutStep('pending', STATES.three_ds, COMMANDS.callback_ok);
  if (!ok.ok) throw new Error(ok.code);
  t.same(ok.payment, { type: 'succeed', method: 'card', card }, 'the challenged card is recorded on success');
  t.equal(ok.saveToken, 'tok', 'its token is saved');
  const f = checkoutStep('pending', STATES.three_ds, COMMANDS.callback_fail);
  if (!f.ok) throw new Error(f.code);
  t.same(f.payment, { type: 'fail', method: 'card', code: 'authentication_failed', card });
  t.equal(f.saveToken, null);
  const sbp = checkoutStep('pending', STATES.sbp, COMMANDS.callback_ok);
  if (!sbp.ok) throw new Error(sbp.code);
  t.same(sbp.payment, { type: 'succeed', method: 'sbp', card: null });
  const wallet = checkoutStep('pending', STATES.wallet, COMMANDS.callback_ok);
  if (!wallet.ok) throw new Error(wallet.code);
  t.same(wallet.payment, { type: 'succeed', method: 'card', card: null }, 'wallets settle on the card rail in the merchant API');
  t.equal(wallet.checkout.method, 'tpay', 'the checkout keeps the exact method');
});

t.test('session status of every payment status', async (t) => {
  t.equal(sessionStatus('pending', OPEN), 'open');
  t.equal(sessionStatus('pending', STATES.poll), 'processing');
  t.equal(sessionStatus('pending', STATES.sbp), 'requires_action');
  t.equal(sessionStatus('succeeded', OPEN), 'succeeded');
  t.equal(sessionStatus('refunded', OPEN), 'succeeded');
  t.equal(sessionStatus('partially_refunded', OPEN), 'succeeded');
  t.equal(sessionStatus('failed', OPEN), 'failed');
  t.equal(sessionStatus('expired', OPEN), 'expired');
  t.equal(sessionStatus('review', OPEN), 'processing');
});

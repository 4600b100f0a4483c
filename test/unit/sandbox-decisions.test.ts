// The sandbox bank's decisions: every test card's outcome, 3-D Secure, SBP, wallets, saved cards; live mode
// refuses test cards, and the live connector is a named not-configured error.
import t from 'tap';
import { checkCard } from '../../src/domain/card.js';
import pg from 'pg';
import { sandboxDecisions as sbx } from '../../src/connectors/sandbox/decisions.js';
import { liveConnector } from '../../src/connectors/live.js';
import { connectorNameFor, createConnectors } from '../../src/connectors/index.js';

const req = { attemptId: 'att_test', paymentId: 'EXZ-20261121-AAAAAAAAAA', amount: 100, currency: 'RUB', livemode: false, baseUrl: 'http://pay.test' };
const card = (number: string) => {
  const r = checkCard({ number, exp_month: '12', exp_year: '2030', cvc: '123' }, Date.UTC(2026, 10, 21));
  if (!r.ok) throw new Error(r.code);
  return r.card;
};

t.test('cards that settle at once', async (t) => {
  for (const [n, kind, code] of [
    ['4242424242424242', 'succeeded', null], ['5555555555554444', 'succeeded', null], ['2200000000000004', 'succeeded', null],
    ['4000000000009995', 'failed', 'insufficient_funds'], ['4000000000000069', 'failed', 'card_expired'],
    ['4000000000000002', 'failed', 'card_declined'], ['4000000000006975', 'failed', 'limit_exceeded'],
    ['4111111111111111', 'failed', 'card_declined'],
  ] as const) {
    const r = await sbx.authorizeCard(req, card(n));
    t.equal(r.kind, kind, n);
    if (r.kind === 'failed') t.equal(r.code, code, n);
    if (r.kind === 'succeeded') t.match(r.token, /^sbx_tok_/);
  }
});

t.test('3-D Secure: 3220 passes or fails with the challenge; 1629 declines after passing', async (t) => {
  const a = await sbx.authorizeCard(req, card('4000000000003220'));
  if (a.kind !== 'three_ds') throw new Error(a.kind);
  t.equal(a.acsUrl, 'http://pay.test/sandbox/3ds/EXZ-20261121-AAAAAAAAAA');
  t.equal(JSON.parse(Buffer.from(a.creq, 'base64url').toString()).acsTransID, a.ref);
  t.equal((await sbx.completeChallenge(req, a.ref, 'Y')).kind, 'succeeded');
  t.match(await sbx.completeChallenge(req, a.ref, 'N'), { kind: 'failed', code: 'authentication_failed' });
  const b = await sbx.authorizeCard(req, card('4000008400001629'));
  if (b.kind !== 'three_ds') throw new Error(b.kind);
  t.match(await sbx.completeChallenge(req, b.ref, 'Y'), { kind: 'failed', code: 'card_declined' });
  t.match(await sbx.completeChallenge(req, b.ref, 'N'), { kind: 'failed', code: 'authentication_failed' });
});

t.test('SBP, wallets, device wallets and saved cards', async (t) => {
  const q = await sbx.startSbp(req, '100000000111');
  if (q.kind !== 'qr') throw new Error(q.kind);
  t.match(q.payload, /^http:\/\/pay\.test\/sandbox\/sbp\/EXZ-20261121-AAAAAAAAAA\?ref=sbx_sbp_/);
  t.match(q.deeplink, /&member=100000000111$/);
  const w = await sbx.startWallet(req, 'tpay', '+79001234567');
  if (w.kind !== 'redirect') throw new Error(w.kind);
  t.match(w.url, /\/sandbox\/wallet\/EXZ-20261121-AAAAAAAAAA\?ref=sbx_tpay_.*&wallet=tpay$/);
  t.equal((await sbx.resolveExternal(req, w.ref, 'approve')).kind, 'succeeded');
  t.match(await sbx.resolveExternal(req, w.ref, 'decline'), { kind: 'failed', code: 'card_declined' });
  t.equal((await sbx.chargeWalletToken(req, 'sandbox_approve')).kind, 'succeeded');
  t.match(await sbx.chargeWalletToken(req, 'sandbox_decline'), { kind: 'failed', code: 'card_declined' });
  t.equal((await sbx.chargeSaved(req, 'sbx_tok_abc')).kind, 'succeeded');
  t.equal((await sbx.chargeSaved(req, 'other')).kind, 'failed');
});

t.test('live mode: the sandbox refuses test cards; the live connector is not configured', async (t) => {
  const live = { ...req, livemode: true };
  for (const n of ['4242424242424242', '4000000000003220', '4000000000000002']) {
    t.same(await sbx.authorizeCard(live, card(n)), { kind: 'error', code: 'test_card_in_live_mode' }, n);
  }
  const pool = new pg.Pool(); // never connected: building the connectors makes no query
  const connectorFor = createConnectors(pool);
  t.equal(connectorFor(true), liveConnector);
  t.equal(connectorFor(false).name, 'sandbox');
  t.same([connectorNameFor(true), connectorNameFor(false)], ['live', 'sandbox']);
  t.same(await liveConnector.lookup('att_x'), { kind: 'unknown_attempt' }, 'the live connector never received anything');
  await pool.end();
  for (const r of [
    await liveConnector.authorizeCard(live, card('4242424242424242')), await liveConnector.startSbp(live, null),
    await liveConnector.startWallet(live, 'sberpay', null), await liveConnector.chargeWalletToken(live, 'x'),
    await liveConnector.chargeSaved(live, 'x'), await liveConnector.completeChallenge(live, 'x', 'Y'), await liveConnector.resolveExternal(live, 'x', 'approve'),
  ]) t.same(r, { kind: 'error', code: 'connector_not_configured' });
});

t.test('refunds: returned, refused for an amount ending in 666, refused in live mode; the live connector is not configured', async (t) => {
  for (const amount of [1, 100, 665, 667, 1000, 4900]) {
    t.match(await sbx.refund({ ...req, amount }, 'sbx_card_x'), { kind: 'succeeded', ref: /^sbx_rfd_/ }, `${amount}`);
  }
  for (const amount of [666, 1666, 10_666]) {
    t.match(await sbx.refund({ ...req, amount }, 'sbx_card_x'), { kind: 'failed', ref: /^sbx_rfd_/, code: 'refund_declined' }, `${amount}`);
  }
  t.match(await sbx.refund(req, null), { kind: 'succeeded' }, 'a payment settled without a charge (test helper)');
  t.same(await sbx.refund({ ...req, livemode: true }, 'x'), { kind: 'error', code: 'connector_not_configured' });
  t.same(await liveConnector.refund({ ...req, livemode: true }, 'x'), { kind: 'error', code: 'connector_not_configured' });
});

t.test('payouts: the declining test cards and IBANs or SBP phones ending in 666 are refused; live is not wired', async (t) => {
  const r = { ...req, amount: 100 };
  const to = (type: 'card' | 'iban' | 'sbp', account: string) => ({ type, account, bic: null, memberId: type === 'sbp' ? '100000000111' : null });
  for (const [type, account, kind] of [
    ['card', '4242424242424242', 'succeeded'], ['card', '4000000000000002', 'failed'], ['card', '4000000000009995', 'failed'],
    ['card', '4000000000003220', 'succeeded'], ['iban', 'DE89370400440532013000', 'succeeded'], ['iban', 'DE52370400440532013666', 'failed'],
    ['sbp', '+79001234567', 'succeeded'], ['sbp', '+79001234666', 'failed'],
  ] as const) {
    const res = await sbx.payout(r, to(type, account));
    t.equal(res.kind, kind, `${type} ${account}`);
    if (res.kind === 'failed') t.equal(res.code, 'payout_declined');
    if (res.kind !== 'error') t.match(res.ref, /^sbx_po_/);
  }
  t.same(await sbx.payout({ ...r, livemode: true }, to('card', '4242424242424242')), { kind: 'error', code: 'connector_not_configured' });
  t.same(await liveConnector.payout({ ...r, livemode: true }, to('iban', 'DE89370400440532013000')), { kind: 'error', code: 'connector_not_configured' });
});

t.test('capture and void: a capture takes the amount and releases the rest, one ending in 666 is refused; a void is never refused; live is not wired', async (t) => {
  t.match(await sbx.capture({ ...req, amount: 3000 }, 'sbx_card_x', 5000), { kind: 'succeeded', ref: /^sbx_cap_/, released: 2000 }, 'partial');
  t.match(await sbx.capture({ ...req, amount: 5000 }, 'sbx_card_x', 5000), { kind: 'succeeded', released: 0 }, 'full');
  for (const amount of [666, 1666, 10_666]) {
    t.match(await sbx.capture({ ...req, amount }, 'sbx_card_x', 20_000), { kind: 'failed', ref: /^sbx_cap_/, code: 'capture_declined' }, `${amount}`);
  }
  t.match(await sbx.void({ ...req, amount: 1666 }, 'sbx_card_x'), { kind: 'succeeded', ref: /^sbx_void_/, released: 1666 });
  t.same(await sbx.capture({ ...req, livemode: true }, 'x', 100), { kind: 'error', code: 'connector_not_configured' });
  t.same(await sbx.void({ ...req, livemode: true }, 'x'), { kind: 'error', code: 'connector_not_configured' });
  t.same(await liveConnector.capture({ ...req, livemode: true }, 'x', 100), { kind: 'error', code: 'connector_not_configured' });
  t.same(await liveConnector.void({ ...req, livemode: true }, 'x'), { kind: 'error', code: 'connector_not_configured' });
});

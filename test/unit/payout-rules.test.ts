// The payout rules (src/domain/payout.ts): every destination type with good and bad values, what is
// kept of it (never the full number), and the state machine table of every (state, command) pair.
import t from 'tap';
import { cardFingerprint } from '../../src/domain/card.js';
import {
  checkDestination, holdsBalance, PAYOUT_STATUSES, transitionPayout, type Payout, type PayoutCommand, type PayoutStatus,
} from '../../src/domain/payout.js';

const KEY = 'unit-test-fingerprint-key';

t.test('card: Luhn, spaces allowed, kept as brand, last4 and the keyed fingerprint only', async (t) => {
  const r = checkDestination({ type: 'card', card: '4242 4242 4242 4242' }, KEY);
  t.ok(r.ok);
  if (!r.ok) return;
  t.same(r.destination.masked, { type: 'card', brand: 'visa', last4: '4242', fingerprint: cardFingerprint('4242424242424242', KEY) });
  t.notOk(JSON.stringify(r.destination.masked).includes('424242424242'), 'the number is not in what is kept');
  t.equal(r.destination.account, '4242424242424242');
  for (const [card, why] of [['4242424242424241', 'Luhn'], ['42424242', 'too short'], ['4'.repeat(20), 'too long'], ['4242-4242-4242-424x', 'letter'], ['', 'empty']] as const) {
    t.match(checkDestination({ type: 'card', card }, KEY), { ok: false, code: 'card_number_invalid', param: 'destination.card' }, why);
  }
  t.match(checkDestination({ type: 'card' }, KEY), { ok: false, code: 'card_number_invalid', param: 'destination.card' }, 'missing');
  t.match(checkDestination({ type: 'card', card: 4242424242424242 }, KEY), { ok: false, code: 'card_number_invalid' }, 'a number, not a string');
  t.match(checkDestination({ type: 'card', card: '4242424242424242', iban: 'DE89370400440532013000' }, KEY),
    { ok: false, code: 'payout_destination_invalid', param: 'destination.iban' }, 'a field of another type');
});

t.test('iban: ISO 13616 checksum, any spacing and case; BIC optional, well formed and of the IBAN\'s country', async (t) => {
  const r = checkDestination({ type: 'iban', iban: 'de89 3704 0044 0532 0130 00', bic: 'cobadeffxxx' }, KEY);
  t.same(r.ok && r.destination.masked, { type: 'iban', country: 'DE', last4: '3000', bic: 'COBADEFFXXX' });
  t.equal(r.ok && r.destination.account, 'DE89370400440532013000');
  t.same(checkDestination({ type: 'iban', iban: 'GB33BUKB20201555555555' }, KEY).ok && 'ok', 'ok', 'without a BIC');
  for (const [iban, why] of [['DE88370400440532013000', 'checksum'], ['DE8937040044053201300', 'length'], ['XX89370400440532013000', 'country'], ['', 'empty'], ['D'.repeat(100), 'huge']] as const) {
    t.match(checkDestination({ type: 'iban', iban }, KEY), { ok: false, code: 'iban_invalid', param: 'destination.iban' }, why);
  }
  for (const [bic, why] of [['COBADEF', 'short'], ['COBA1EFFXXX', 'digit in the bank code'], ['BUKBGB22', 'another country'], ['', 'empty']] as const) {
    t.match(checkDestination({ type: 'iban', iban: 'DE89370400440532013000', bic }, KEY), { ok: false, code: 'bic_invalid', param: 'destination.bic' }, why);
  }
  t.match(checkDestination({ type: 'iban', iban: 'DE89370400440532013000', phone: '+79001234567' }, KEY), { ok: false, code: 'payout_destination_invalid', param: 'destination.phone' });
});

t.test('sbp: an E.164 phone and, optionally, a 12-digit member id', async (t) => {
  const r = checkDestination({ type: 'sbp', phone: '+79001234567', member_id: '100000000111' }, KEY);
  t.same(r.ok && r.destination.masked, { type: 'sbp', phone_last4: '4567', member_id: '100000000111' });
  for (const [phone, why] of [['79001234567', 'no plus'], ['+0900123456', 'leading zero'], ['+7 900 123 45 67', 'spaces'], ['+12345', 'too short'], ['+1234567890123456', 'too long'], ['', 'empty']] as const) {
    t.match(checkDestination({ type: 'sbp', phone, member_id: '100000000111' }, KEY), { ok: false, code: 'phone_invalid', param: 'destination.phone' }, why);
  }
  for (const [member, why] of [['10000000011', '11 digits'], ['1000000001111', '13 digits'], ['10000000011a', 'letter']] as const) {
    t.match(checkDestination({ type: 'sbp', phone: '+79001234567', member_id: member }, KEY), { ok: false, code: 'sbp_member_invalid', param: 'destination.member_id' }, why);
  }
  // The spec's destination has no bank field: a phone alone goes to the recipient's default SBP bank.
  const phoneOnly = checkDestination({ type: 'sbp', phone: '+79001234567' }, KEY);
  t.same(phoneOnly.ok && phoneOnly.destination.masked, { type: 'sbp', phone_last4: '4567', member_id: null }, 'member id optional');
  t.match(checkDestination({ type: 'sbp', phone: '+79001234567', member_id: '100000000111', card: '4242424242424242' }, KEY), { ok: false, code: 'payout_destination_invalid', param: 'destination.card' });
});

t.test('type: one of card, iban, sbp', async (t) => {
  for (const type of [undefined, 'wallet', 'CARD', 1, null]) {
    t.match(checkDestination({ type, card: '4242424242424242' }, KEY), { ok: false, code: 'payout_destination_invalid', param: 'destination.type' }, String(type));
  }
});

const base = (status: PayoutStatus): Payout => ({
  id: 'po_x', merchantId: 'mer_x', livemode: false, status, amount: 100, currency: 'AZN',
  destination: { type: 'card', brand: 'visa', last4: '4242', fingerprint: 'f' }, failure: null, metadata: {}, attemptId: 'att_x',
  connectorRef: null, requestId: 'req', idempotencyKey: null, requestHash: null, createdAt: 0, updatedAt: 0,
});

const COMMANDS: Record<string, PayoutCommand> = { pay: { type: 'pay', ref: 'r1' }, fail: { type: 'fail', code: 'payout_declined', ref: 'r2' } };
// (state, command) -> the new status and its event, or the refusal.
const TABLE: Record<PayoutStatus, Record<string, [PayoutStatus, string] | 'payout_not_pending'>> = {
  pending: { pay: ['paid', 'payout.paid'], fail: ['failed', 'payout.failed'] },
  paid: { pay: 'payout_not_pending', fail: 'payout_not_pending' },
  failed: { pay: 'payout_not_pending', fail: 'payout_not_pending' },
};

t.test('the state machine: every (state, command) pair', async (t) => {
  t.same(Object.keys(TABLE).sort(), [...PAYOUT_STATUSES].sort(), 'the table covers every state');
  for (const s of PAYOUT_STATUSES) {
    t.same(Object.keys(TABLE[s]).sort(), Object.keys(COMMANDS).sort(), `${s}: every command`);
    for (const [name, cmd] of Object.entries(COMMANDS)) {
      const r = transitionPayout(base(s), cmd, 5);
      const want = TABLE[s][name];
      if (want === 'payout_not_pending') t.same(r, { ok: false, code: 'payout_not_pending' }, `${s} x ${name}`);
      else {
        t.match(r, { ok: true, state: { status: want[0], updatedAt: 5, connectorRef: cmd.ref }, events: [want[1]] }, `${s} x ${name}`);
        if (r.ok && want[0] === 'failed') t.same(r.state.failure?.code, 'payout_declined');
        if (r.ok && want[0] === 'paid') t.equal(r.state.failure, null);
      }
    }
  }
});

t.test('only a failed payout gives its amount back to the balance', async (t) => {
  t.same(PAYOUT_STATUSES.map(holdsBalance), [true, true, false]);
});

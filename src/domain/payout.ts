// Payouts: where money leaves a merchant's balance. Pure rules: destination validation (card by
// Luhn, IBAN by its ISO 13616 checksum through ibantools, SBP phone by E.164 with, optionally, the
// bank's 12-digit member id) and the payout state machine pending -> paid | failed. Money in minor units.
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import { brandOf, cardFingerprint, luhnValid } from './card.js';
import { MEMBER_ID_RE } from './sbp-member.js';

export const PAYOUT_OPERATION = 'payout';
export const PAYOUT_ID_RE = /^po_[0-9A-Za-z]{24}$/;

export type PayoutStatus = 'pending' | 'paid' | 'failed';
export const PAYOUT_STATUSES: readonly PayoutStatus[] = ['pending', 'paid', 'failed'];

/** What is kept of a destination: never a full card number or a full IBAN. */
export type MaskedDestination =
  | { type: 'card'; brand: string; last4: string; fingerprint: string }
  | { type: 'iban'; country: string; last4: string; bic: string | null }
  | { type: 'sbp'; phone_last4: string; member_id: string | null };

/**
 * A checked destination: `masked` is what is stored and shown; `account` (the full card number,
 * the IBAN or the phone) exists only in memory on its way to the bank.
 */
export interface CheckedDestination { masked: MaskedDestination; account: string }

export type DestinationErrorCode =
  | 'payout_destination_invalid' | 'card_number_invalid' | 'iban_invalid' | 'bic_invalid' | 'phone_invalid' | 'sbp_member_invalid';
export type DestinationCheck = { ok: true; destination: CheckedDestination } | { ok: false; code: DestinationErrorCode; param: string };

export interface DestinationInput { type?: unknown; card?: unknown; iban?: unknown; bic?: unknown; phone?: unknown; member_id?: unknown }

/** The fields each destination type takes (besides `type`); any other given field is refused. */
const FIELDS: Record<MaskedDestination['type'], { required: string[]; optional: string[] }> = {
  card: { required: ['card'], optional: [] },
  iban: { required: ['iban'], optional: ['bic'] },
  // The spec's destination names no bank: without member_id the recipient's default SBP bank receives it.
  sbp: { required: ['phone'], optional: ['member_id'] },
};

export const E164_RE = /^\+[1-9][0-9]{6,14}$/;

const bad = (code: DestinationErrorCode, field: string): DestinationCheck => ({ ok: false, code, param: `destination.${field}` });

/** Checks a payout destination; `fingerprintKey` keys the card fingerprint (CARD_FINGERPRINT_KEY). */
export function checkDestination(d: DestinationInput, fingerprintKey: string): DestinationCheck {
  const type = d.type;
  if (type !== 'card' && type !== 'iban' && type !== 'sbp') return bad('payout_destination_invalid', 'type');
  const spec = FIELDS[type];
  for (const [k, v] of Object.entries(d)) {
    if (k === 'type' || v === undefined) continue;
    if (!spec.required.includes(k) && !spec.optional.includes(k)) return bad('payout_destination_invalid', k);
    if (typeof v !== 'string') return bad(codeOf(k), k);
  }
  for (const k of spec.required) if (typeof (d as Record<string, unknown>)[k] !== 'string') return bad(codeOf(k), k);
  if (type === 'card') {
    const pan = (d.card as string).replace(/[\s-]/g, '');
    if (!/^[0-9]{12,19}$/.test(pan) || !luhnValid(pan)) return bad('card_number_invalid', 'card');
    return { ok: true, destination: { account: pan, masked: { type, brand: brandOf(pan), last4: pan.slice(-4), fingerprint: cardFingerprint(pan, fingerprintKey) } } };
  }
  if (type === 'iban') {
    const raw = d.iban as string;
    const iban = raw.length <= 64 ? electronicFormatIBAN(raw) : null;
    if (!iban || !isValidIBAN(iban)) return bad('iban_invalid', 'iban');
    let bic: string | null = null;
    if (typeof d.bic === 'string') {
      bic = d.bic.trim().toUpperCase();
      // A BIC names a bank in a country: it must be well formed and of the IBAN's country.
      if (!isValidBIC(bic) || bic.slice(4, 6) !== iban.slice(0, 2)) return bad('bic_invalid', 'bic');
    }
    return { ok: true, destination: { account: iban, masked: { type, country: iban.slice(0, 2), last4: iban.slice(-4), bic } } };
  }
  const phone = d.phone as string;
  if (!E164_RE.test(phone)) return bad('phone_invalid', 'phone');
  const member = typeof d.member_id === 'string' ? d.member_id : null;
  if (member !== null && !MEMBER_ID_RE.test(member)) return bad('sbp_member_invalid', 'member_id');
  return { ok: true, destination: { account: phone, masked: { type, phone_last4: phone.slice(-4), member_id: member } } };
}

function codeOf(field: string): DestinationErrorCode {
  switch (field) {
    case 'card': return 'card_number_invalid';
    case 'iban': return 'iban_invalid';
    case 'bic': return 'bic_invalid';
    case 'phone': return 'phone_invalid';
    case 'member_id': return 'sbp_member_invalid';
    default: return 'payout_destination_invalid';
  }
}

export interface PayoutFailure { code: string; message: string }

export interface Payout {
  id: string;
  merchantId: string;
  livemode: boolean;
  status: PayoutStatus;
  amount: number;
  currency: string;
  destination: MaskedDestination;
  failure: PayoutFailure | null;
  metadata: Record<string, string>;
  attemptId: string;
  connectorRef: string | null;
  requestId: string;
  idempotencyKey: string | null;
  requestHash: string | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * A payout request refused for its balance once it began executing: what its Idempotency-Key keeps
 * (a same-key request is answered by it, never evaluated again), `available` being what was left of
 * the balance at its turn.
 */
export interface PayoutRefusal { code: 'insufficient_balance'; available: number; currency: string; requestId: string }

/** What an Idempotency-Key of payouts holds: the payout it made, or its refusal; `requestHash` of the request that bound it. */
export type PayoutKeyHolds = { requestHash: string } & ({ payout: Payout } | { refusal: PayoutRefusal });

export type PayoutCommand =
  | { type: 'pay'; ref: string }
  | { type: 'fail'; code: string; ref: string | null };

export type PayoutTransition =
  | { ok: true; state: Payout; events: ('payout.paid' | 'payout.failed')[] }
  | { ok: false; code: 'payout_not_pending' };

export const PAYOUT_FAILURE_MESSAGES: Record<string, string> = {
  payout_declined: 'The receiving bank refused the payout.',
  payout_interrupted: 'The payout never reached the bank; nothing was paid.',
  connector_not_configured: 'Payouts are not available in this mode.',
};

/** The one state machine of a payout: only a pending payout moves, once. */
export function transitionPayout(p: Payout, cmd: PayoutCommand, now: number): PayoutTransition {
  if (p.status !== 'pending') return { ok: false, code: 'payout_not_pending' };
  if (cmd.type === 'pay') return { ok: true, state: { ...p, status: 'paid', connectorRef: cmd.ref, updatedAt: now }, events: ['payout.paid'] };
  const message = PAYOUT_FAILURE_MESSAGES[cmd.code] ?? 'The payout failed.';
  return { ok: true, state: { ...p, status: 'failed', failure: { code: cmd.code, message }, connectorRef: cmd.ref, updatedAt: now }, events: ['payout.failed'] };
}

/** A payout counts against the balance unless it failed (pending ones are reserved). */
export const holdsBalance = (s: PayoutStatus): boolean => s !== 'failed';

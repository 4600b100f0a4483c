// Gateway payout and balance schemas (the single source of their types and of the OpenAPI
// document) and the payout's public view, as the API answers it and webhooks carry it.
import { Type, type Static } from '@sinclair/typebox';
import { MAX_AMOUNT } from '../domain/money.js';
import type { Payout } from '../domain/payout.js';
import { Currency, Metadata, Timestamp } from './common.js';
import { isoInstant } from '../domain/instant.js';

const Str = (max: number) => Type.String({ maxLength: max });

export const PayoutDestinationInput = Type.Object({
  type: Type.Union([Type.Literal('card'), Type.Literal('iban'), Type.Literal('sbp')]),
  card: Type.Optional(Type.String({ maxLength: 64, description: 'type card: the card number (Luhn); kept as last4 and a keyed fingerprint only' })),
  iban: Type.Optional(Type.String({ maxLength: 64, description: 'type iban: the IBAN, any spacing and case (ISO 13616 checksum)' })),
  bic: Type.Optional(Type.String({ maxLength: 16, description: 'type iban, optional: the BIC (8 or 11 characters, of the IBAN\'s country)' })),
  phone: Type.Optional(Type.String({ maxLength: 32, description: 'type sbp: the phone number in E.164 (+79001234567)' })),
  member_id: Type.Optional(Type.String({ maxLength: 32, description: 'type sbp, optional: the receiving bank, a 12-digit member id of the SBP list (GET /sbp/members); without it the recipient\'s default SBP bank' })),
}, { additionalProperties: false });

export const CreatePayoutRequest = Type.Object({
  amount: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'Minor units of the currency' }),
  currency: Currency,
  destination: PayoutDestinationInput,
  metadata: Type.Optional(Metadata),
}, { additionalProperties: false, $id: 'CreatePayoutRequest' });
export type CreatePayoutRequest = Static<typeof CreatePayoutRequest>;

/** Which error code a schema failure under each top-level field maps to. */
export const CREATE_PAYOUT_FIELD_CODES = {
  amount: 'amount_invalid', currency: 'currency_invalid', destination: 'payout_destination_invalid', metadata: 'metadata_invalid',
} as const;

const Nullable = <T extends import('@sinclair/typebox').TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const PayoutDestinationView = Type.Union([
  Type.Object({ type: Type.Literal('card'), brand: Type.String(), last4: Type.String(), fingerprint: Type.String() }),
  Type.Object({ type: Type.Literal('iban'), country: Type.String(), last4: Type.String(), bic: Nullable(Type.String()) }),
  Type.Object({ type: Type.Literal('sbp'), phone_last4: Type.String(), member_id: Nullable(Type.String()) }),
], { description: 'The destination\'s type and masked details' });

export const PayoutResource = Type.Object({
  id: Type.String({ description: 'po_…' }),
  object: Type.Literal('payout'),
  status: Type.Union([Type.Literal('pending'), Type.Literal('paid'), Type.Literal('failed')]),
  amount: Type.Integer(),
  currency: Type.String(),
  destination: PayoutDestinationView,
  failure: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
  metadata: Type.Record(Type.String(), Type.String()),
  livemode: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { $id: 'Payout' });

export const PayoutList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(PayoutResource),
  total: Type.Integer({ description: 'Payouts that match the filter' }),
  limit: Type.Integer(),
  offset: Type.Integer(),
  has_more: Type.Boolean(),
});

export const BalanceResource = Type.Object({
  object: Type.Literal('balance'),
  livemode: Type.Boolean({ description: 'The key\'s mode: a test key sees the test balance, a live key the live one' }),
  available: Type.Array(Type.Object({ currency: Type.String(), amount: Type.Integer() }), {
    description: 'Per currency: the net (amount less fee less refunds) of settled payments, less every payout that has not failed. A payout may spend up to this.',
  }),
  pending: Type.Array(Type.Object({ currency: Type.String(), amount: Type.Integer() }), {
    description: 'Per currency: payouts sent and not yet settled by the bank (already taken out of available)',
  }),
});

export function payoutView(p: Payout) {
  return {
    id: p.id, object: 'payout' as const, status: p.status, amount: p.amount, currency: p.currency, destination: p.destination,
    failure: p.failure, metadata: p.metadata, livemode: p.livemode,
    created_at: isoInstant(p.createdAt), updated_at: isoInstant(p.updatedAt),
  };
}

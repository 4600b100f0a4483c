// Merchant API (2026-09-22): payment request and resource schemas, the only source of their types.
import { Type, type Static } from '@sinclair/typebox';
import { MAX_AMOUNT } from '../domain/money.js';
import { FAILURE_CODES, MERCHANT_PAYMENT_STATUSES } from '../domain/payment.js';
import { Currency, Locale, MerchantMetadata, Timestamp } from './common.js';
import { TestClockRef } from './test-clocks.js';

const Str = (max: number, extra = {}) => Type.String({ maxLength: max, ...extra });

export const CustomerInput = Type.Object({
  email: Type.Optional(Str(254, { format: 'email' })),
  name: Type.Optional(Str(255)),
  phone: Type.Optional(Str(32, { pattern: '^\\+?[0-9 ()-]{3,31}$' })),
  ip: Type.Optional(Type.Union([Str(15, { format: 'ipv4' }), Str(45, { format: 'ipv6' })], { description: 'IPv4 or IPv6 address of the customer' })),
  country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2' })),
  city: Type.Optional(Str(255)),
  address: Type.Optional(Str(500)),
  zip: Type.Optional(Str(32)),
}, { additionalProperties: false });

export const CreatePaymentRequest = Type.Object({
  amount: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'Minor units of the currency' }),
  currency: Type.Optional(Currency),
  order_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  description: Type.Optional(Str(200)),
  method: Type.Optional(Type.Union([Type.Literal('card'), Type.Literal('sbp')])),
  return_url: Type.Optional(Str(2048, { format: 'uri', description: 'A public https URL; in test mode on the embedded development server a loopback URL (http://localhost…) too' })),
  customer: Type.Optional(CustomerInput),
  metadata: Type.Optional(MerchantMetadata),
  locale: Type.Optional(Locale),
  test_clock: Type.Optional(TestClockRef),
}, { additionalProperties: false, $id: 'CreatePaymentRequest' });
export type CreatePaymentRequest = Static<typeof CreatePaymentRequest>;

/** Which error code a schema failure under each top-level field maps to. */
export const CREATE_PAYMENT_FIELD_CODES = {
  amount: 'amount_invalid', currency: 'currency_invalid', order_id: 'order_id_invalid',
  description: 'description_invalid', method: 'method_invalid', return_url: 'return_url_invalid',
  customer: 'customer_invalid', metadata: 'metadata_invalid', locale: 'locale_invalid', test_clock: 'test_clock_not_found',
} as const;

const Nullable = <T extends import('@sinclair/typebox').TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const PaymentResource = Type.Object({
  id: Type.String({ pattern: '^EXZ-\\d{8}-[0-9A-Z]{10}$' }),
  object: Type.Literal('payment'),
  livemode: Type.Boolean(),
  status: Type.Union(MERCHANT_PAYMENT_STATUSES.map((s) => Type.Literal(s)), { description: 'The spec\'s seven statuses; final: succeeded, failed, expired, refunded, partially_refunded' }),
  amount: Type.Integer(),
  currency: Type.String(),
  amount_refunded: Type.Integer(),
  fee: Type.Integer(),
  net: Type.Integer(),
  charged: Nullable(Type.Object({ amount: Type.Integer(), currency: Type.String() })),
  order_id: Nullable(Type.String()),
  description: Nullable(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  method: Type.Union([Type.Literal('card'), Type.Literal('sbp')]),
  customer: Type.Object({ email: Nullable(Type.String()), name: Nullable(Type.String()), phone: Nullable(Type.String()) }),
  card: Nullable(Type.Object({ brand: Type.String(), last4: Type.String(), country: Nullable(Type.String()) })),
  failure: Nullable(Type.Object({ code: Type.Union(FAILURE_CODES.map((c) => Type.Literal(c))), message: Type.String() })),
  checkout_url: Type.String({ format: 'uri' }),
  return_url: Nullable(Type.String()),
  source: Type.Union([Type.Literal('api'), Type.Literal('link'), Type.Literal('form'), Type.Literal('insales')]),
  created_at: Timestamp,
  paid_at: Nullable(Timestamp),
  request_id: Type.String(),
}, { $id: 'Payment' });
export type PaymentResource = Static<typeof PaymentResource>;

export const PaymentList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(PaymentResource),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String()),
  request_id: Type.String(),
}, { $id: 'PaymentList' });

export const ListPaymentsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  status: Type.Optional(Type.Union(MERCHANT_PAYMENT_STATUSES.map((s) => Type.Literal(s)))),
  order_id: Type.Optional(Type.String()),
  from: Type.Optional(Type.String({ description: 'YYYY-MM-DD or YYYY-MM-DD HH:MM (UTC), inclusive' })),
  to: Type.Optional(Type.String({ description: 'YYYY-MM-DD or YYYY-MM-DD HH:MM (UTC), inclusive of that day or minute' })),
  starting_after: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
});

export const Ping = Type.Object({
  object: Type.Literal('ping'), ok: Type.Literal(true), livemode: Type.Boolean(), merchant_id: Type.String(),
  api_version: Type.String(), request_id: Type.String(),
}, { $id: 'Ping' });

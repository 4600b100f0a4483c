// Gateway API (public checkout endpoints): request schemas, the single source of their types, and
// the views of the method catalog and of a payment's checkout.
import { Type, type Static } from '@sinclair/typebox';
import { METHOD_CODES, RENDER_MODES } from '../domain/methods.js';
import { FAILURE_CODES } from '../domain/payment.js';

const MethodCodeSchema = Type.Union(METHOD_CODES.map((m) => Type.Literal(m)));

export const SubmitMethodRequest = Type.Object({
  method_code: MethodCodeSchema,
  phone: Type.Optional(Type.String({ maxLength: 16, pattern: '^\\+[1-9][0-9]{7,14}$', description: 'E.164; sberpay and tpay' })),
  email: Type.Optional(Type.String({ maxLength: 254, format: 'email' })),
  member_id: Type.Optional(Type.String({ maxLength: 12, pattern: '^([0-9]{12})?$', description: 'sbp: bank member id (12 digits)' })),
  wallet_id: Type.Optional(Type.String({ maxLength: 64, pattern: '^[0-9A-Za-z_-]*$' })),
  saved_payment_method_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^pm_[0-9A-Za-z]+$' })),
  payment_token: Type.Optional(Type.String({ minLength: 1, maxLength: 8192 })),
  payment_data: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { maxProperties: 50 })),
  payload: Type.Optional(Type.Object({
    dynamic: Type.Optional(Type.Boolean()),
    extra: Type.Optional(Type.Object({
      memberId: Type.Optional(Type.String({ maxLength: 12, pattern: '^([0-9]{12})?$' })),
      bank_id: Type.Optional(Type.String({ maxLength: 12, pattern: '^([0-9]{12})?$' })),
    }, { additionalProperties: false })),
  }, { additionalProperties: false })),
}, { additionalProperties: false, $id: 'SubmitMethodRequest' });
export type SubmitMethodRequest = Static<typeof SubmitMethodRequest>;

export const SUBMIT_FIELD_CODES = {
  method_code: 'method_code_invalid', phone: 'phone_invalid', email: 'email_invalid', member_id: 'sbp_member_unknown',
  wallet_id: 'parameter_invalid', saved_payment_method_id: 'saved_payment_method_not_found', payment_token: 'payment_token_invalid',
  payment_data: 'payment_token_invalid', payload: 'sbp_member_unknown',
} as const;

export const PayRequest = Type.Object({
  number: Type.String({ maxLength: 32 }),
  exp_month: Type.Union([Type.String({ maxLength: 4 }), Type.Integer()]),
  exp_year: Type.Union([Type.String({ maxLength: 4 }), Type.Integer()]),
  cvc: Type.String({ maxLength: 4 }),
  holder: Type.Optional(Type.String({ maxLength: 100 })),
}, { additionalProperties: false, $id: 'PayRequest' });
export type PayRequest = Static<typeof PayRequest>;

export const PAY_FIELD_CODES = {
  number: 'card_number_invalid', exp_month: 'card_expiry_invalid', exp_year: 'card_expiry_invalid',
  cvc: 'card_cvc_invalid', holder: 'card_holder_invalid',
} as const;

export const TestCompleteRequest = Type.Object({
  outcome: Type.Union([Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('expired')]),
  failure_code: Type.Optional(Type.Union(FAILURE_CODES.filter((c) => c !== 'expired').map((c) => Type.Literal(c)))),
}, { additionalProperties: false, $id: 'TestCompleteRequest' });
export type TestCompleteRequest = Static<typeof TestCompleteRequest>;

export const TEST_COMPLETE_FIELD_CODES = { outcome: 'parameter_invalid', failure_code: 'parameter_invalid' } as const;

// Operator endpoints of the three catalog layers.
const Limit = Type.Union([Type.Integer({ minimum: 1, maximum: 9_999_999_999 }), Type.Null()]);
export const CapabilityRequest = Type.Object({
  enabled: Type.Optional(Type.Boolean()),
  render_mode: Type.Optional(Type.Union(RENDER_MODES.map((m) => Type.Literal(m)))),
  display_order: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
  supports_recurring: Type.Optional(Type.Boolean()),
  supports_refund: Type.Optional(Type.Boolean()),
  min_amount_minor: Type.Optional(Limit),
  max_amount_minor: Type.Optional(Limit),
  allowed_currencies: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Z]{3}$' }), { maxItems: 50, uniqueItems: true })),
}, { additionalProperties: false });
export type CapabilityRequest = Static<typeof CapabilityRequest>;

export const AcquirerSwitchRequest = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });
export const MerchantSettingRequest = Type.Object({
  enabled: Type.Boolean(),
  display_order: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 10_000 }), Type.Null()])),
}, { additionalProperties: false });
export type MerchantSettingRequest = Static<typeof MerchantSettingRequest>;

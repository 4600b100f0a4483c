// Gateway checkout sessions and widget sessions: request and resource schemas (the single source of
// their types and of their OpenAPI entries) and the CheckoutSession view of a session's payment row.
import { Type, type Static } from '@sinclair/typebox';
import { sessionStatus, type CheckoutState } from '../domain/checkout.js';
import { METHOD_CODES } from '../domain/methods.js';
import { MAX_AMOUNT } from '../domain/money.js';
import type { Payment } from '../domain/payment.js';
import { nextActionView } from './checkout-view.js';
import { Currency, Locale, Metadata, Timestamp } from './common.js';
import { TestClockRef } from './test-clocks.js';
import { isoInstant } from '../domain/instant.js';

const MethodCode = Type.Union(METHOD_CODES.map((m) => Type.Literal(m)));
const Url = Type.String({ minLength: 1, maxLength: 2048, format: 'uri' });
/** success_url / cancel_url: where the payer is sent back (src/domain/checkout-session.ts sessionUrls). */
const ReturnUrl = Type.String({ minLength: 1, maxLength: 2048, format: 'uri', description: 'Live mode: a public https URL. Test mode: http or https, on a public host or on localhost (127.0.0.1, ::1)' });

export const GatewayCustomer = Type.Object({
  email: Type.Optional(Type.String({ maxLength: 254, format: 'email' })),
  phone: Type.Optional(Type.String({ maxLength: 32, pattern: '^\\+?[0-9 ()-]{3,31}$' })),
  name: Type.Optional(Type.String({ maxLength: 255 })),
  country: Type.Optional(Type.String({ minLength: 2, maxLength: 2, pattern: '^[A-Za-z]{2}$', description: 'Exactly 2 characters (ISO 3166-1 alpha-2)' })),
}, { additionalProperties: false });

const common = {
  amount: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'Minor units (4900 means 49.00)' }),
  currency: Currency,
  description: Type.Optional(Type.String({ maxLength: 500 })),
  order_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  language: Type.Optional(Locale),
  customer: Type.Optional(GatewayCustomer),
  metadata: Type.Optional(Metadata),
  initial_method: Type.Optional(MethodCode),
};

export const CheckoutSettings = Type.Object({
  payment_methods: Type.Optional(Type.Array(MethodCode, { minItems: 1, maxItems: METHOD_CODES.length, uniqueItems: true, description: 'Whitelist; a subset of the effective catalog' })),
  button_text: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  auto_return: Type.Optional(Type.Integer({ minimum: 0, maximum: 300, description: 'Seconds on the success screen before returning to success_url; 0 stays' })),
  success_url: Type.Optional(ReturnUrl),
  cancel_url: Type.Optional(ReturnUrl),
}, { additionalProperties: false, description: 'Presentation overrides; the legacy success_url/cancel_url lose to the top-level ones' });

export const CreateCheckoutRequest = Type.Object({
  ...common,
  success_url: Type.Optional(ReturnUrl),
  cancel_url: Type.Optional(ReturnUrl),
  settings: Type.Optional(CheckoutSettings),
  webhook_url: Type.Optional(Url),
  test_mode: Type.Optional(Type.Boolean({ description: 'Must match the key when given' })),
  channel_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'UUID, ch_… or slug; the default channel when omitted' })),
  test_clock: Type.Optional(TestClockRef),
}, { additionalProperties: false, $id: 'CreateCheckoutRequest' });
export type CreateCheckoutRequest = Static<typeof CreateCheckoutRequest>;

export const CreateWidgetSessionRequest = Type.Object(common, { additionalProperties: false, $id: 'CreateWidgetSessionRequest' });
export type CreateWidgetSessionRequest = Static<typeof CreateWidgetSessionRequest>;

export const CHECKOUT_FIELD_CODES = {
  amount: 'amount_invalid', currency: 'currency_invalid', description: 'description_invalid', order_id: 'order_id_invalid',
  language: 'locale_invalid', customer: 'customer_invalid', metadata: 'metadata_invalid', initial_method: 'method_code_invalid',
  success_url: 'return_url_invalid', cancel_url: 'return_url_invalid', settings: 'settings_invalid', webhook_url: 'webhook_url_invalid',
  test_mode: 'test_mode_invalid', channel_id: 'parameter_invalid', test_clock: 'test_clock_not_found',
} as const;

const Nullable = <T extends import('@sinclair/typebox').TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const CheckoutSession = Type.Object({
  id: Type.String({ pattern: '^cs_[0-9A-Za-z]{24}$' }),
  object: Type.Literal('checkout_session'),
  checkout_url: Type.String({ format: 'uri' }),
  expires_at: Timestamp,
  amount: Type.Integer(),
  currency: Type.String(),
  status: Type.Union(['open', 'processing', 'requires_action', 'succeeded', 'failed', 'cancelled', 'expired'].map((s) => Type.Literal(s))),
  livemode: Type.Boolean(),
  selected_method_code: Nullable(MethodCode),
  next_action: Nullable(Type.Object({ type: Type.String() }, { additionalProperties: true })),
  channel_id: Nullable(Type.String()),
  order_id: Nullable(Type.String()),
  description: Nullable(Type.String()),
  language: Type.String(),
  metadata: Type.Record(Type.String(), Type.String()),
  created_at: Timestamp,
  request_id: Type.String(),
}, { $id: 'CheckoutSession' });

export const WidgetSessionResponse = Type.Object({
  session_id: Type.String(), checkout_url: Type.String({ format: 'uri' }), expires_at: Timestamp,
  livemode: Type.Boolean({ description: 'The key\'s mode (spec: "Resources carry a boolean livemode")' }),
}, { $id: 'WidgetSessionResponse' });

export const checkoutUrlOf = (p: Payment, publicBaseUrl: string): string => `${publicBaseUrl}/pay/${p.id}`;

export function toCheckoutSession(p: Payment, c: CheckoutState, publicBaseUrl: string, requestId: string) {
  const status = sessionStatus(p.status, c);
  return {
    id: p.id, object: 'checkout_session' as const, checkout_url: checkoutUrlOf(p, publicBaseUrl),
    expires_at: isoInstant(p.expiresAt), amount: p.amount, currency: p.currency, status,
    livemode: p.livemode, selected_method_code: c.method,
    next_action: status === 'requires_action' ? nextActionView(c.nextAction) : null,
    channel_id: p.channelId, order_id: p.orderId, description: p.description, language: p.locale ?? 'en',
    metadata: p.metadata, created_at: isoInstant(p.createdAt), request_id: requestId,
  };
}

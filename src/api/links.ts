// Merchant API (2026-09-22): payment link request and resource schemas, and the domain -> API view.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { MAX_AMOUNT } from '../domain/money.js';
import { isOpen, MAX_LINK_USES, type Link } from '../domain/link.js';
import { Currency, Timestamp } from './common.js';
import { TestClockRef } from './test-clocks.js';
import { isoInstant, isoOrNull } from '../domain/instant.js';

const RFC3339 = '^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})$';
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const CreateLinkRequest = Type.Object({
  amount: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'Minor units; absent or null: the payer enters the sum on the link page (either type)' })),
  currency: Type.Optional(Currency),
  description: Type.Optional(Type.String({ maxLength: 200 })),
  max_uses: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LINK_USES, description: 'Paid payments allowed (either type); absent or null: no limit' })),
  expires_at: Type.Optional(Type.String({ pattern: RFC3339, maxLength: 40, description: 'RFC 3339, in the future; after it the link stops working' })),
  type: Type.Optional(Type.Union([Type.Literal('dynamic'), Type.Literal('static')], { description: 'dynamic (default) or static; a static link\'s page also shows the printable QR code of its URL' })),
  test_clock: Type.Optional(TestClockRef),
}, { additionalProperties: false, $id: 'CreateLinkRequest' });
export type CreateLinkRequest = Static<typeof CreateLinkRequest>;

export const CREATE_LINK_FIELD_CODES = {
  amount: 'amount_invalid', currency: 'currency_invalid', description: 'description_invalid', max_uses: 'max_uses_invalid',
  expires_at: 'expires_at_invalid', type: 'link_type_invalid', test_clock: 'test_clock_not_found',
} as const;

export const LinkResource = Type.Object({
  id: Type.String({ pattern: '^lnk_[0-9A-Za-z]{20}$' }),
  object: Type.Literal('payment_link'),
  livemode: Type.Boolean(),
  type: Type.Union([Type.Literal('dynamic'), Type.Literal('static')]),
  url: Type.String({ format: 'uri', description: 'The page where the customer pays' }),
  amount: Nullable(Type.Integer({ description: 'null when the payer enters the sum' })),
  currency: Type.String(),
  description: Nullable(Type.String()),
  max_uses: Nullable(Type.Integer({ description: 'null: no limit' })),
  uses: Type.Integer({ description: 'Paid payments' }),
  expires_at: Nullable(Timestamp),
  active: Type.Boolean({ description: 'Whether a payer can pay it now: not deactivated, not expired, a use left' }),
  created_at: Timestamp,
  request_id: Type.String(),
}, { $id: 'PaymentLink' });
export type LinkResource = Static<typeof LinkResource>;

export const LinkList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(LinkResource),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String()),
  request_id: Type.String(),
}, { $id: 'PaymentLinkList' });

export const ListLinksQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  starting_after: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
});


export const linkUrl = (publicBaseUrl: string, id: string): string => `${publicBaseUrl}/link/${id}`;

export function toLinkResource(l: Link, publicBaseUrl: string, requestId: string, now: number): LinkResource {
  return {
    id: l.id, object: 'payment_link', livemode: l.livemode, type: l.type, url: linkUrl(publicBaseUrl, l.id), amount: l.amount,
    currency: l.currency, description: l.description, max_uses: l.maxUses, uses: l.uses, expires_at: isoOrNull(l.expiresAt),
    active: isOpen(l, now), created_at: isoInstant(l.createdAt), request_id: requestId,
  };
}


// SBP bank lists: the member record of the gateway spec, the `{data, count}` lists, and the
// operator's requests under /internal/sbp/members. The pure rules beyond the shapes (names, URL
// schemes) are in src/domain/sbp-member.ts.
import { Type, type Static } from '@sinclair/typebox';
import { LIST_LIMIT_MAX, LIST_LIMIT_MIN, MAX_DISPLAY_ORDER, MAX_NAME, MAX_URL } from '../domain/sbp-member.js';
import type { ErrorCode } from '../errors.js';
import { Timestamp } from './common.js';

const MemberId = Type.String({ pattern: '^[0-9]{12}$', description: 'NSPK participant id, 12 digits (e.g. 100000000111)' });
const Name = Type.String({ minLength: 1, maxLength: MAX_NAME });
const Url = (description: string) => Type.String({ maxLength: MAX_URL, description });
const LOGO = 'https URL of the logo; empty for none';
const IOS = 'App link for iOS (e.g. bank100000000111://qr.nspk.ru/, to which the QR link path is appended) or an https link; empty for none';
const ANDROID = 'App link for Android, same rules as deeplink_ios';
const Order = (dflt?: number) => Type.Integer({ minimum: 0, maximum: MAX_DISPLAY_ORDER, description: 'Lists are ordered by it (ascending)', ...(dflt === undefined ? {} : { default: dflt }) });

export const SbpMemberResource = Type.Object({
  member_id: MemberId,
  name: Type.Object({ en: Type.String(), ru: Type.String(), az: Type.String() }, { description: 'Localised names' }),
  logo_url: Type.String(),
  deeplink_ios: Type.String(),
  deeplink_android: Type.String(),
  is_popular: Type.Boolean(),
  display_order: Type.Integer(),
}, { $id: 'SbpMember' });

export const SbpMemberList = Type.Object({
  data: Type.Array(SbpMemberResource), count: Type.Integer({ minimum: 0 }), request_id: Type.Optional(Type.String()),
}, { $id: 'SbpMemberList', description: 'Empty (count 0) when the list cannot be read: the lists fail open' });

export const CheckoutSbpMemberList = Type.Object({
  data: Type.Array(SbpMemberResource), count: Type.Integer({ minimum: 0 }),
  currency_supported: Type.Boolean({ description: 'true only for a RUB payment; data is empty otherwise' }),
  request_id: Type.Optional(Type.String()),
}, { $id: 'CheckoutSbpMemberList' });

export const LimitQuery = (dflt?: number) => Type.Integer({
  minimum: LIST_LIMIT_MIN, maximum: LIST_LIMIT_MAX, ...(dflt ? { default: dflt } : {}),
  description: 'Digits only; anything else or out of range is 400 VALIDATION_ERROR, reason LIMIT_INVALID',
});

export const SbpMemberRecord = Type.Composite([
  SbpMemberResource,
  Type.Object({ active: Type.Boolean(), created_at: Timestamp, updated_at: Timestamp }),
], { $id: 'SbpMemberRecord' });

export const UpsertSbpMemberRequest = Type.Object({
  member_id: MemberId,
  name: Type.Object({ en: Name, ru: Name, az: Name }, { additionalProperties: false }),
  logo_url: Type.Optional(Url(LOGO)),
  deeplink_ios: Type.Optional(Url(IOS)),
  deeplink_android: Type.Optional(Url(ANDROID)),
  is_popular: Type.Optional(Type.Boolean({ default: false })),
  display_order: Type.Optional(Order(100)),
  active: Type.Optional(Type.Boolean({ default: true, description: 'false keeps the row but removes it from the lists and the whitelist' })),
}, { additionalProperties: false, $id: 'UpsertSbpMemberRequest' });
export type UpsertSbpMemberRequest = Static<typeof UpsertSbpMemberRequest>;

export const PatchSbpMemberRequest = Type.Object({
  name: Type.Optional(Type.Object({ en: Type.Optional(Name), ru: Type.Optional(Name), az: Type.Optional(Name) }, { additionalProperties: false, minProperties: 1 })),
  logo_url: Type.Optional(Url(LOGO)),
  deeplink_ios: Type.Optional(Url(IOS)),
  deeplink_android: Type.Optional(Url(ANDROID)),
  is_popular: Type.Optional(Type.Boolean()),
  display_order: Type.Optional(Order()),
  active: Type.Optional(Type.Boolean()),
}, { additionalProperties: false, minProperties: 1, $id: 'PatchSbpMemberRequest' });
export type PatchSbpMemberRequest = Static<typeof PatchSbpMemberRequest>;

export const SBP_MEMBER_FIELD_CODES: Record<string, ErrorCode> = { member_id: 'sbp_member_id_invalid' };

// Operator (/internal) request and resource schemas.
import { Type, type Static } from '@sinclair/typebox';
import { PERMISSIONS } from '../domain/permissions.js';
import { fail, type ApiFailure } from '../errors.js';
import { Currency } from './common.js';

const FeePercent = Type.Number({ minimum: 0, maximum: 100, description: 'Percent of the amount, e.g. 2.5; kept to hundredths (basis points)' });
const FeeFixed = Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'Minor units added to every payment fee' });

export const CreateMerchantRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  default_currency: Type.Optional(Currency),
  currencies: Type.Optional(Type.Array(Currency, { minItems: 1, maxItems: 50, uniqueItems: true })),
  fee_percent: Type.Optional(FeePercent),
  fee_fixed: Type.Optional(FeeFixed),
  rate_limit_per_minute: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 10_000_000 }), Type.Null()])),
  api_enabled: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type CreateMerchantRequest = Static<typeof CreateMerchantRequest>;

// The framing allowlist is set by PATCH only (issue 10); src/domain/frame-origins.ts checks each entry.
export const AllowedDomains = Type.Array(Type.String({ maxLength: 300 }), {
  maxItems: 100, description: 'Site origins allowed to frame the hosted page, e.g. https://shop.example (at most 20; [] for none)',
});

export const PatchMerchantRequest = Type.Composite([
  Type.Partial(CreateMerchantRequest),
  Type.Object({
    allowed_domains: Type.Optional(AllowedDomains),
    card_data_allowed: Type.Optional(Type.Boolean({ description: 'Accept raw card data through POST /v2/payments (PCI; operator only)' })),
  }),
], { additionalProperties: false });
export type PatchMerchantRequest = Static<typeof PatchMerchantRequest>;

const KeyKind = Type.Union([Type.Literal('merchant'), Type.Literal('secret'), Type.Literal('restricted'), Type.Literal('publishable')]);

export const CreateApiKeyRequestBody = Type.Object({
  kind: Type.Optional(KeyKind),
  scope: Type.Optional(Type.Union([Type.Literal('channel'), Type.Literal('restricted')], {
    description: 'The gateway spec\'s wording: channel = a secret key pinned to channel_id, restricted = a restricted key; kind may be left out',
  })),
  mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
  channel_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Gateway keys: the channel (ch_…, UUID or slug) the key is pinned to' })),
  permissions: Type.Optional(Type.Array(Type.Union(PERMISSIONS.map((p) => Type.Literal(p))), {
    maxItems: PERMISSIONS.length, uniqueItems: true,
    description: 'Restricted keys only: resource:action entries; write implies read; no wildcards',
  })),
  label: Type.Optional(Type.String({ maxLength: 100 })),
}, { additionalProperties: false });
/** A key request once its scope is resolved to a kind (keyRequestOf). */
export type CreateApiKeyRequest = Omit<Static<typeof CreateApiKeyRequestBody>, 'kind' | 'scope'> & { kind: Static<typeof KeyKind> };

const SCOPE_KIND = { channel: 'secret', restricted: 'restricted' } as const;

/** The kind a body asks for: `kind`, or the kind its `scope` means (both must agree); `channel` needs channel_id. */
export function keyRequestOf(b: Static<typeof CreateApiKeyRequestBody>): CreateApiKeyRequest | ApiFailure {
  const { scope, kind, ...rest } = b;
  if (scope === undefined) return kind === undefined ? fail('parameter_missing', 'kind') : { ...rest, kind };
  if (kind !== undefined && kind !== SCOPE_KIND[scope]) return fail('parameter_invalid', 'scope', `scope ${scope} is a ${SCOPE_KIND[scope]} key`);
  if (scope === 'channel' && rest.channel_id === undefined) return fail('parameter_missing', 'channel_id');
  return { ...rest, kind: SCOPE_KIND[scope] };
}

/** The scope a key has in the spec's terms: restricted, channel (a pinned secret key), or none. */
export const keyScopeOf = (k: { kind: string; channelId: string | null }): 'channel' | 'restricted' | null =>
  k.kind === 'restricted' ? 'restricted' : k.channelId !== null ? 'channel' : null;

export const KEY_PREFIX: Record<CreateApiKeyRequest['kind'], string> = {
  merchant: 'svc_', secret: 'sk_', restricted: 'rk_', publishable: 'pk_',
};

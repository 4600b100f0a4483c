// Gateway channel requests and the channel resource (/v1/channels).
import { Type, type Static } from '@sinclair/typebox';
import type { Channel } from '../domain/channel.js';
import type { ErrorCode } from '../errors.js';
import { Currency, Timestamp } from './common.js';
import { isoInstant, isoOrNull } from '../domain/instant.js';

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'A public https URL' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const Slug = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$', description: 'Lower-case letters, digits and inner hyphens; unique per merchant and mode; never UUID-shaped' });
const Name = Type.String({ minLength: 1, maxLength: 100 });
const Color = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: '#RRGGBB' });
const Title = Type.String({ minLength: 1, maxLength: 100 });
const Currencies = Type.Array(Currency, { maxItems: 50, uniqueItems: true, description: 'ISO 4217; a subset of the merchant\'s currencies; empty: all of them' });

export const BrandingInput = Type.Object({
  logo_url: Type.Optional(Nullable(Url)),
  primary_color: Type.Optional(Nullable(Color)),
  return_url: Type.Optional(Nullable(Url)),
  custom_title: Type.Optional(Nullable(Title)),
}, { additionalProperties: false, description: 'Shown on the hosted page over the merchant\'s defaults; null clears a field' });

export const CreateChannelRequest = Type.Object({
  slug: Slug,
  name: Name,
  branding: Type.Optional(BrandingInput),
  webhook_url: Type.Optional(Nullable(Url)),
  currencies: Type.Optional(Currencies),
}, { additionalProperties: false });
export type CreateChannelRequest = Static<typeof CreateChannelRequest>;

export const PatchChannelRequest = Type.Object({
  slug: Type.Optional(Slug),
  name: Type.Optional(Name),
  branding: Type.Optional(BrandingInput),
  webhook_url: Type.Optional(Nullable(Url)),
  currencies: Type.Optional(Currencies),
}, { additionalProperties: false, description: 'Only the fields given change; branding fields merge' });
export type PatchChannelRequest = Static<typeof PatchChannelRequest>;

export const RotateChannelSecretRequest = Type.Object({
  grace_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 * 86400, description: 'How long the old secret keeps signing (default 86400)' })),
}, { additionalProperties: false });

export const CHANNEL_FIELD_CODES: Record<string, ErrorCode> = { webhook_url: 'webhook_url_invalid', currencies: 'currency_invalid' };

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const ChannelResource = Type.Object({
  id: Type.String({ description: 'ch_…' }),
  object: Type.Literal('channel'),
  uuid: Type.String({ description: 'UUID' }),
  slug: Type.String(),
  name: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('deleted')]),
  is_default: Type.Boolean(),
  livemode: Type.Boolean(),
  branding: Type.Object({ logo_url: NullableString, primary_color: NullableString, return_url: NullableString, custom_title: NullableString }),
  webhook_url: NullableString,
  webhook_secret: Type.Optional(Type.String({ description: 'Shown only when the channel is created and when the secret is rotated' })),
  currencies: Type.Array(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: Type.Union([Timestamp, Type.Null()]),
}, { $id: 'Channel' });


export function channelView(c: Channel, withSecret = false): Static<typeof ChannelResource> {
  const b = c.branding;
  return {
    id: c.id, object: 'channel', uuid: c.uuid, slug: c.slug, name: c.name, status: c.status, is_default: c.isDefault, livemode: c.livemode,
    branding: { logo_url: b.logo_url ?? null, primary_color: b.primary_color ?? null, return_url: b.return_url ?? null, custom_title: b.custom_title ?? null },
    webhook_url: c.webhookUrl, ...(withSecret ? { webhook_secret: c.webhookSecret } : {}),
    currencies: c.currencies, created_at: isoInstant(c.createdAt), updated_at: isoInstant(c.updatedAt), deleted_at: isoOrNull(c.deletedAt),
  };
}

// Operator schemas for webhook settings.
import { Type, type Static } from '@sinclair/typebox';

export const WebhookApi = Type.Union([Type.Literal('merchant'), Type.Literal('gateway')]);

export const PutWebhookSettings = Type.Object({
  api: WebhookApi,
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  events: Type.Optional(Type.Union([Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 20, uniqueItems: true }), Type.Null()])),
  channel_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
}, { additionalProperties: false });
export type PutWebhookSettings = Static<typeof PutWebhookSettings>;

export const SettingsScope = Type.Object({
  api: WebhookApi,
  channel_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
  grace_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 * 86400, description: 'rotate-secret only: how long the old secret keeps signing (default 86400)' })),
}, { additionalProperties: false });
export type SettingsScope = Static<typeof SettingsScope>;

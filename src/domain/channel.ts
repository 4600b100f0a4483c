// Gateway channels: identifiers, field rules and the status machine. Pure.
//
//   active ──pause──▶ paused ──resume──▶ active
//   active|paused ──delete──▶ deleted ──restore──▶ active
//   promote-default: an active channel becomes the default (the old default stays active)
// The default channel is always active: it cannot be paused or deleted (soft or hard).

export type ChannelStatus = 'active' | 'paused' | 'deleted';

export interface Branding { logo_url?: string; primary_color?: string; return_url?: string; custom_title?: string }

export interface Channel {
  id: string; uuid: string; merchantId: string; livemode: boolean; slug: string; name: string;
  status: ChannelStatus; isDefault: boolean; branding: Branding; webhookUrl: string | null;
  webhookSecret: string; previousWebhookSecret: string | null; previousSecretExpiresAt: number | null;
  currencies: string[]; createdAt: number; updatedAt: number; deletedAt: number | null; version: number;
}

export const CHANNEL_ID_RE = /^ch_[0-9A-Za-z]{20}$/;
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Lower-case letters, digits and inner hyphens, 1 to 64 characters. */
export const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
export const COLOR_RE = /^#[0-9a-fA-F]{6}$/;

/** How a `{id}` names a channel: its public id `ch_…`, its UUID, or the merchant's slug. */
export type ChannelRef = { by: 'id' | 'uuid' | 'slug'; value: string };

export function parseChannelRef(ref: string): ChannelRef | null {
  if (CHANNEL_ID_RE.test(ref)) return { by: 'id', value: ref };
  if (UUID_RE.test(ref)) return { by: 'uuid', value: ref.toLowerCase() };
  if (SLUG_RE.test(ref)) return { by: 'slug', value: ref };
  return null;
}

/** Why a slug is refused, or null. A slug that looks like a UUID would make `{id}` ambiguous. */
export function slugProblem(slug: string): string | null {
  if (!SLUG_RE.test(slug)) return 'lower-case letters, digits and inner hyphens, 1 to 64 characters';
  if (UUID_RE.test(slug)) return 'a slug must not look like a UUID';
  return null;
}

export type ChannelCommand = 'pause' | 'resume' | 'delete' | 'restore' | 'promote_default';
export type ChannelRefusal = 'channel_is_default' | 'channel_status_conflict';

/** The channel after the command, or why it is refused. */
export function transitionChannel(c: Pick<Channel, 'status' | 'isDefault'>, cmd: ChannelCommand, now: number):
  { status: ChannelStatus; isDefault: boolean; deletedAt: number | null } | ChannelRefusal {
  const same = { status: c.status, isDefault: c.isDefault, deletedAt: null as number | null };
  switch (cmd) {
    case 'pause':
      if (c.isDefault) return 'channel_is_default';
      return c.status === 'active' ? { ...same, status: 'paused' } : 'channel_status_conflict';
    case 'resume':
      return c.status === 'paused' ? { ...same, status: 'active' } : 'channel_status_conflict';
    case 'delete':
      if (c.isDefault) return 'channel_is_default';
      return c.status === 'deleted' ? 'channel_status_conflict' : { ...same, status: 'deleted', deletedAt: now };
    case 'restore':
      return c.status === 'deleted' ? { ...same, status: 'active' } : 'channel_status_conflict';
    case 'promote_default':
      if (c.isDefault) return { ...same };
      return c.status === 'active' ? { ...same, isDefault: true } : 'channel_status_conflict';
  }
}

/** Whether a new checkout session or payment may be taken on this channel. */
export function sessionRefusal(c: Pick<Channel, 'status'>): 'channel_paused' | 'channel_deleted' | null {
  return c.status === 'paused' ? 'channel_paused' : c.status === 'deleted' ? 'channel_deleted' : null;
}

/** The reasons a hard delete is refused; empty means nothing references the channel. */
export interface ChannelReferences { api_keys: number; webhook_settings: number; transactions: number }

export function hardDeleteReasons(c: Pick<Channel, 'isDefault'>, refs: ChannelReferences): { reason: string; count: number }[] {
  const out: { reason: string; count: number }[] = [];
  if (c.isDefault) out.push({ reason: 'default_channel', count: 1 });
  for (const [reason, count] of Object.entries(refs)) if (count > 0) out.push({ reason, count });
  return out;
}

// What gateway route handlers share: the authenticated key (set by the front end's gateway gate,
// src/http/app.ts), its channel scope, and channel resolution for new sessions and payments.
// A gateway route is declared as { api: 'gateway', auth: 'gateway' | 'widget', permission, ... }:
// the gate has already answered 401/403 (key, kind, restricted permission) and 429 by then.
import { parseChannelRef, sessionRefusal, type Channel } from '../domain/channel.js';
import type { Permission } from '../domain/permissions.js';
import { fail, type ApiFailure } from '../errors.js';
import { findChannel, type Scope } from '../store/channels-repo.js';
import type { Principal } from './auth.js';
import type { Ctx } from './context.js';
import type { Method, Route } from './route.js';
import type { Services } from './services.js';

/** The key behind a gateway or widget route (always set once the handler runs). */
export const principalOf = (ctx: Ctx): Principal => ctx.auth as Principal;

/** The merchant and mode a key sees: test keys see test objects only. */
export const scopeOf = (p: Principal): Scope => ({ merchantId: p.merchant.id, livemode: p.livemode });

/** 403 when a channel-scoped key names another channel; null when allowed. */
export function channelScopeRefusal(p: Principal, channel: Pick<Channel, 'id'>): ApiFailure | null {
  return p.key.channelId !== null && p.key.channelId !== channel.id ? fail('channel_forbidden', 'channel_id') : null;
}

/** 403 for an operation on the whole account (create, promote-default, ...) made with a channel-scoped key. */
export function accountWideRefusal(p: Principal): ApiFailure | null {
  return p.key.channelId !== null ? fail('channel_forbidden', null, 'this key is pinned to one channel') : null;
}

/**
 * The channel named by `{id}` (ch_…, UUID or slug) for this key: 404 when the merchant has no such
 * channel in the key's mode (another merchant's channel included), 403 when the key is pinned to
 * another channel.
 */
export async function channelFor(s: Services, p: Principal, ref: string): Promise<Channel | ApiFailure> {
  const parsed = parseChannelRef(ref);
  const ch = parsed ? await findChannel(s.db, scopeOf(p), parsed) : null;
  if (!ch) return fail('channel_not_found', 'id');
  return channelScopeRefusal(p, ch) ?? ch;
}

/**
 * The channel a new checkout session or payment is taken on: the one named (`channel_id` in any of
 * its three forms) or, when none is named, the key's own channel, else the merchant's default.
 * Refused: 404 channel_not_found, 403 channel_forbidden, 409 channel_paused / channel_deleted.
 */
export async function resolveChannelForSession(s: Services, p: Principal, ref: string | null | undefined): Promise<Channel | ApiFailure> {
  let ch: Channel | null;
  if (ref !== undefined && ref !== null) {
    const parsed = parseChannelRef(ref);
    ch = parsed ? await findChannel(s.db, scopeOf(p), parsed) : null;
  } else if (p.key.channelId !== null) {
    ch = await findChannel(s.db, scopeOf(p), { by: 'id', value: p.key.channelId });
  } else {
    ch = await s.reads.defaultChannel(scopeOf(p));
  }
  if (!ch) return fail('channel_not_found', 'channel_id');
  const scope = channelScopeRefusal(p, ch);
  if (scope) return scope;
  const refused = sessionRefusal(ch);
  return refused ? fail(refused, 'channel_id') : ch;
}

/** A gateway route table entry: key-authenticated, with the permission a restricted key needs. */
export const gatewayRoute = (method: Method, path: string, permission: Permission, handler: Route['handler'], o: { body?: boolean; bodyKey?: string; widget?: boolean } = {}): Route =>
  ({ method, path, api: 'gateway', auth: o.widget ? 'widget' : 'gateway', permission, body: o.body, bodyKey: o.bodyKey, handler });

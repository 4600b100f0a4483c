// Gateway key kinds and what each may do. Pure: the front end asks `gatewayAccess` for every
// gateway request before its handler runs (src/http/app.ts).
//
// Permissions are `resource:action`; `write` implies `read` of the same resource. There are no
// wildcards: a key holding `payments:*` would silently gain every action added later, so a
// restricted key lists what it may do, and a new permission is granted only by issuing a new key.

export const PERMISSIONS = [
  'payments:read', 'payments:write',
  'refunds:read', 'refunds:write',
  'payouts:read', 'payouts:write',
  'channels:read', 'channels:write',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const isPermission = (p: string): p is Permission => (PERMISSIONS as readonly string[]).includes(p);

export type GatewayKeyKind = 'secret' | 'restricted' | 'publishable';

/** Where a route lives: the server-side gateway API, or the widget endpoints a browser calls. */
export type Surface = 'server' | 'widget';

export interface KeyGrant { kind: string; permissions: readonly string[] | null }

/** Whether a restricted key's list grants `need` (write implies read). */
export function grants(list: readonly string[] | null, need: Permission): boolean {
  if (!list) return false;
  if (list.includes(need)) return true;
  const [resource, action] = need.split(':');
  return action === 'read' && list.includes(`${resource}:write`);
}

export type Access = 'ok' | 'key_kind_not_allowed' | 'publishable_key_not_allowed' | 'permission_denied';

/**
 * Secret keys may do everything; restricted keys what their list grants; publishable keys only
 * the widget endpoints (which need no listed permission). Keys of the merchant API never pass.
 */
export function gatewayAccess(key: KeyGrant, surface: Surface, need: Permission | null): Access {
  switch (key.kind) {
    case 'secret': return 'ok';
    case 'publishable': return surface === 'widget' ? 'ok' : 'publishable_key_not_allowed';
    case 'restricted': return need === null || grants(key.permissions, need) ? 'ok' : 'permission_denied';
    default: return 'key_kind_not_allowed';
  }
}

/** Key prefixes of the gateway API, each with its kind and mode. */
export const GATEWAY_PREFIXES: Record<string, { kind: GatewayKeyKind; mode: 'test' | 'live' }> = {
  sk_test_: { kind: 'secret', mode: 'test' }, sk_live_: { kind: 'secret', mode: 'live' },
  rk_test_: { kind: 'restricted', mode: 'test' }, rk_live_: { kind: 'restricted', mode: 'live' },
  pk_test_: { kind: 'publishable', mode: 'test' }, pk_live_: { kind: 'publishable', mode: 'live' },
};

export function gatewayPrefixOf(key: string): { kind: GatewayKeyKind; mode: 'test' | 'live' } | null {
  return GATEWAY_PREFIXES[key.slice(0, 8)] ?? null;
}

// The framing allowlist of a merchant: the site origins allowed to put the hosted page in a frame
// (CSP frame-ancestors) and to receive its outcome by postMessage. Pure rules, no I/O.
//
// An entry is an origin only: scheme, host and an optional port. https for every host; plain http
// only for loopback hosts (localhost, 127.0.0.1) so that development works. No IPv6 literal: CSP
// source expressions cannot name one. Never `*`, a
// bare scheme, a wildcard host, a path, a query, a fragment or credentials. Entries are stored in
// their canonical form (lower-case host, default port dropped) without duplicates.

export const MAX_ALLOWED_DOMAINS = 20;

const SHAPE = /^(https?):\/\/([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)(?::(\d{1,5}))?$/i;
const LOOPBACK = new Set(['localhost', '127.0.0.1']);

export type OriginCheck = { ok: true; origin: string } | { ok: false; reason: string };

/** One entry: its canonical origin, or why it is refused. */
export function checkFrameOrigin(input: string): OriginCheck {
  const m = SHAPE.exec(input);
  if (!m) return { ok: false, reason: 'must be an origin like https://shop.example (scheme, host, optional port; no path, wildcard or *)' };
  let u: URL;
  try { u = new URL(input); } catch { return { ok: false, reason: 'is not a valid origin' }; }
  if (m[3] !== undefined && (Number(m[3]) < 1 || Number(m[3]) > 65535)) return { ok: false, reason: 'has a port outside 1-65535' };
  if (u.protocol === 'http:' && !LOOPBACK.has(u.hostname)) return { ok: false, reason: 'must use https (plain http only for localhost and 127.0.0.1)' };
  return { ok: true, origin: u.origin };
}

export type OriginsCheck = { ok: true; origins: string[] } | { ok: false; index: number | null; reason: string };

/** The whole list: canonical, deduplicated, at most MAX_ALLOWED_DOMAINS entries. */
export function checkFrameOrigins(list: readonly string[]): OriginsCheck {
  if (list.length > MAX_ALLOWED_DOMAINS) return { ok: false, index: null, reason: `at most ${MAX_ALLOWED_DOMAINS} origins` };
  const out: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const c = checkFrameOrigin(list[i]);
    if (!c.ok) return { ok: false, index: i, reason: c.reason };
    if (!out.includes(c.origin)) out.push(c.origin);
  }
  return { ok: true, origins: out };
}

/** The parent origin a framed page may report to: the asked one when it is on the list, else null. */
export function allowedParent(asked: string | null, allowlist: readonly string[]): string | null {
  if (!asked) return null;
  const c = checkFrameOrigin(asked);
  return c.ok && allowlist.includes(c.origin) ? c.origin : null;
}

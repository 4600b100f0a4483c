// An SBP (Faster Payments System) participant bank as the bank lists show it, and the rules an
// operator's record must meet. Pure, no I/O.
//
// - member_id: the 12-digit NSPK participant id (e.g. 100000000111, Sberbank).
// - names: en, ru and az, each 1-100 characters, no control characters.
// - logo_url: empty or an https URL with a host.
// - deeplink_ios / deeplink_android: empty, an https universal link, or an app scheme URL
//   (`bank100000000111://qr.nspk.ru/`); never a script-capable or local scheme.
// - display_order: 0-100000; lists are ordered by it, then by member_id.

export const MEMBER_ID_RE = /^[0-9]{12}$/;
export const MAX_NAME = 100;
export const MAX_URL = 2048;
export const MAX_DISPLAY_ORDER = 100_000;

/** Limits of the `limit` query parameter of the public lists, and the popular list's default. */
export const LIST_LIMIT_MIN = 1;
export const LIST_LIMIT_MAX = 100;
export const POPULAR_DEFAULT_LIMIT = 6;

export interface SbpMember {
  member_id: string;
  name: { en: string; ru: string; az: string };
  logo_url: string;
  deeplink_ios: string;
  deeplink_android: string;
  is_popular: boolean;
  display_order: number;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const SCHEME = /^([a-z][a-z0-9+.-]{0,31}):\/\/[^\s]*$/i;
const FORBIDDEN_SCHEMES = new Set(['javascript', 'data', 'vbscript', 'file', 'blob', 'about', 'http', 'ftp', 'ws']);

/** Why a name is refused, or null. */
export function nameProblem(v: string): string | null {
  if (v.trim() === '') return 'must not be empty';
  if (v.length > MAX_NAME) return `must be at most ${MAX_NAME} characters`;
  if (CONTROL.test(v)) return 'must not contain control characters';
  return null;
}

/** Why a logo URL is refused, or null. Empty means "no logo". */
export function logoUrlProblem(v: string): string | null {
  if (v === '') return null;
  if (v.length > MAX_URL) return `must be at most ${MAX_URL} characters`;
  let u: URL;
  try { u = new URL(v); } catch { return 'must be an https URL'; }
  if (u.protocol !== 'https:' || !u.hostname || /\s/.test(v) || u.username || u.password) return 'must be an https URL with a host and no credentials';
  return null;
}

/** Why a deeplink is refused, or null. Empty means "no app link". */
export function deeplinkProblem(v: string): string | null {
  if (v === '') return null;
  if (v.length > MAX_URL) return `must be at most ${MAX_URL} characters`;
  const m = SCHEME.exec(v);
  if (!m || CONTROL.test(v)) return 'must be an app link like bank100000000111://qr.nspk.ru/ or an https URL';
  const scheme = m[1].toLowerCase();
  if (FORBIDDEN_SCHEMES.has(scheme)) return `must not use the ${scheme}: scheme`;
  try { new URL(v); } catch { return 'is not a valid URL'; }
  return null;
}

/** The public list order: display_order, then member_id. */
export const byDisplayOrder = (a: SbpMember, b: SbpMember): number =>
  a.display_order - b.display_order || (a.member_id < b.member_id ? -1 : a.member_id > b.member_id ? 1 : 0);

/** The popular banks of a list, in display order, at most `limit`. */
export function popularOf(list: readonly SbpMember[], limit: number): SbpMember[] {
  return list.filter((m) => m.is_popular).sort(byDisplayOrder).slice(0, limit);
}

/**
 * The `limit` query value: undefined when absent, the integer when valid, null when invalid
 * (not digits only, repeated, or outside LIST_LIMIT_MIN..LIST_LIMIT_MAX).
 */
export function parseListLimit(values: string[]): number | undefined | null {
  if (values.length === 0) return undefined;
  if (values.length > 1 || !/^[0-9]{1,4}$/.test(values[0])) return null;
  const n = Number(values[0]);
  return n >= LIST_LIMIT_MIN && n <= LIST_LIMIT_MAX ? n : null;
}

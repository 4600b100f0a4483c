// The list filters' date formats: YYYY-MM-DD or YYYY-MM-DD HH:MM (a T also separates), in UTC.
// `from` is inclusive; `to` includes the whole day or minute it names.

const RE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}))?$/;

export interface DateBound { start: number; end: number }

/** The instant range [start, end) a value names, or null when it is not a real date in these formats. */
export function parseDateBound(v: string): DateBound | null {
  const m = RE.exec(v.trim());
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const hasTime = m[4] !== undefined;
  const [h, mi] = hasTime ? [Number(m[4]), Number(m[5])] : [0, 0];
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59) return null;
  const start = Date.UTC(y, mo - 1, d, h, mi);
  const back = new Date(start);
  if (back.getUTCDate() !== d || back.getUTCMonth() !== mo - 1) return null; // 2026-02-30 and the like
  return { start, end: start + (hasTime ? 60_000 : 86_400_000) };
}

const INSTANT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** The gateway list's date-time (RFC 3339 with its offset) as the instant itself, else the forms above. */
export function parseDateTimeBound(v: string): DateBound | null {
  if (INSTANT_RE.test(v.trim())) {
    const at = Date.parse(v.trim());
    return Number.isFinite(at) ? { start: at, end: at + 1 } : null;
  }
  return parseDateBound(v);
}

// An instant (epoch milliseconds) as its ISO 8601 UTC text, the form `Date.prototype.toISOString`
// gives, at a fraction of its cost. Node 20's toISOString is a C++ builtin that takes about 2 µs a
// call on the bench machine (a formatter in JS takes 0.1-0.2), and every create formats six or more
// instants: its row, its view, its event, its access line (docs/decisions.md, "Instants formatted in
// JS"). Years outside 0000-9999, and invalid values, go to toISOString itself, which writes the
// six-digit form or throws its RangeError.

const DAY_MS = 86_400_000;
const TWO = Array.from({ length: 100 }, (_, i) => (i < 10 ? `0${i}` : String(i)));
const THREE = Array.from({ length: 1000 }, (_, i) => (i < 10 ? `00${i}` : i < 100 ? `0${i}` : String(i)));
/** 0000-01-01 and 9999-12-31 as day numbers since 1970-01-01. */
const FIRST_DAY = -719_528;
const LAST_DAY = 2_932_896;

// The last day formatted: instants come in runs of the same day (now, a payment's own stamps).
let cachedDay = Number.NaN;
let cachedDate = '';

/** `new Date(ms).toISOString()`, the same text for every value. */
export function isoInstant(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  if (!(day >= FIRST_DAY && day <= LAST_DAY) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  if (day !== cachedDay) {
    cachedDate = dateOfDay(day);
    cachedDay = day;
  }
  let rest = ms - day * DAY_MS;
  const milli = rest % 1000; rest = (rest - milli) / 1000;
  const sec = rest % 60; rest = (rest - sec) / 60;
  const min = rest % 60;
  const hour = (rest - min) / 60;
  return `${cachedDate}T${TWO[hour]}:${TWO[min]}:${TWO[sec]}.${THREE[milli]}Z`;
}

/** `isoInstant`, with null kept as null (a stamp not yet set: paid_at of an open payment). */
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : isoInstant(ms));

/** YYYY-MM-DD of a day number since 1970-01-01 (proleptic Gregorian, in eras of 400 years). */
function dateOfDay(day: number): string {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${TWO[Math.floor(y / 100)]}${TWO[y % 100]}-${TWO[m]}-${TWO[d]}`;
}

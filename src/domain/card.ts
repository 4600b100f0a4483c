// Card data rules: Luhn, brand, expiry, CVC, and the keyed fingerprint. Pure functions. Errors name
// the field and never carry the number.
import { createHmac } from 'node:crypto';

export interface CardInput { number: string; exp_month: string | number; exp_year: string | number; cvc: string; holder?: string }

/** A checked card: the full number and CVC exist only in memory on their way to the connector. */
export interface CheckedCard { pan: string; expMonth: number; expYear: number; cvc: string; holder: string | null; brand: string }

export type CardErrorCode = 'card_number_invalid' | 'card_expiry_invalid' | 'card_cvc_invalid' | 'card_holder_invalid';
export type CardCheck = { ok: true; card: CheckedCard } | { ok: false; code: CardErrorCode; param: string };

export function luhnValid(digits: string): boolean {
  if (!/^[0-9]+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
  }
  return sum % 10 === 0;
}

export function brandOf(pan: string): string {
  const p2 = Number(pan.slice(0, 2));
  const p4 = Number(pan.slice(0, 4));
  if (p4 >= 2200 && p4 <= 2204) return 'mir';
  if (pan.startsWith('4')) return 'visa';
  if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return 'mastercard';
  if (p2 === 34 || p2 === 37) return 'amex';
  if (pan.startsWith('62')) return 'unionpay';
  return 'unknown';
}

const intOf = (v: string | number): number => {
  if (typeof v === 'number') return Number.isInteger(v) ? v : NaN;
  return /^[0-9]{1,4}$/.test(v.trim()) ? Number(v.trim()) : NaN;
};

/** Checks a card entered on the hosted page at `now` (UTC). Spaces and dashes in the number are allowed. */
export function checkCard(input: CardInput, now: number): CardCheck {
  const pan = typeof input.number === 'string' ? input.number.replace(/[\s-]/g, '') : '';
  if (!/^[0-9]{12,19}$/.test(pan) || !luhnValid(pan)) return { ok: false, code: 'card_number_invalid', param: 'number' };
  const month = intOf(input.exp_month);
  if (!(month >= 1 && month <= 12)) return { ok: false, code: 'card_expiry_invalid', param: 'exp_month' };
  let year = intOf(input.exp_year);
  const rawYear = String(input.exp_year).trim();
  if (Number.isInteger(year) && rawYear.length <= 2) year += 2000;
  const d = new Date(now);
  const thisYear = d.getUTCFullYear();
  if (!(year >= 2000 && year <= thisYear + 20)) return { ok: false, code: 'card_expiry_invalid', param: 'exp_year' };
  if (year < thisYear || (year === thisYear && month < d.getUTCMonth() + 1)) return { ok: false, code: 'card_expiry_invalid', param: 'exp_year' };
  const brand = brandOf(pan);
  const cvc = typeof input.cvc === 'string' ? input.cvc.trim() : '';
  if (!(brand === 'amex' ? /^[0-9]{4}$/ : /^[0-9]{3}$/).test(cvc)) return { ok: false, code: 'card_cvc_invalid', param: 'cvc' };
  let holder: string | null = null;
  if (input.holder !== undefined) {
    if (typeof input.holder !== 'string' || input.holder.length > 100 || /[0-9<>]/.test(input.holder)) return { ok: false, code: 'card_holder_invalid', param: 'holder' };
    holder = input.holder.trim() || null;
  }
  return { ok: true, card: { pan, expMonth: month, expYear: year, cvc, holder, brand } };
}

/** The keyed fingerprint of a card number: HMAC-SHA256 under the server's key, hex. */
export const cardFingerprint = (pan: string, key: string): string => createHmac('sha256', key).update(pan).digest('hex');

/** What is kept of a card: brand, last4, expiry, country (from the connector) and the fingerprint. */
export function cardSummary(c: CheckedCard, key: string, country: string | null) {
  return { brand: c.brand, last4: c.pan.slice(-4), country, expMonth: c.expMonth, expYear: c.expYear, fingerprint: cardFingerprint(c.pan, key) };
}

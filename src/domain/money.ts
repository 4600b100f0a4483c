// Money rules: integers in minor units, never floats.

export const MAX_AMOUNT = 9_999_999_999;

export const isValidAmount = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 && v <= MAX_AMOUNT;

export const CURRENCY_RE = /^[A-Z]{3}$/;

/** ISO 4217 codes as this Node's ICU knows them (current currencies), read once. */
let iso: Set<string> | null = null;
export const isIsoCurrency = (code: string): boolean => (iso ??= new Set(Intl.supportedValuesOf('currency'))).has(code);

/**
 * What a refused currency is, and what to send instead: the detail of currency_not_enabled. A code
 * that is no currency at all ("XYZ") is said to be none, so it is not taken for one awaiting
 * activation.
 */
export function currencyRefusal(code: string, enabled: readonly string[]): string {
  const what = isIsoCurrency(code) ? `${code} is not enabled for this account` : `${code} is not an ISO 4217 currency`;
  return `${what}; it takes ${enabled.join(', ')}`;
}

/** Minor-unit exponent per currency; ISO 4217 codes not listed use 2. */
const EXPONENT: Record<string, number> = { JPY: 0, KRW: 0, VND: 0, CLP: 0, ISK: 0, BHD: 3, KWD: 3, JOD: 3, OMR: 3, TND: 3 };
export const currencyExponent = (currency: string): number => EXPONENT[currency] ?? 2;

export interface FeeSettings { feeBps: number; feeFixed: number }

/** Service fee: percentage (basis points, rounded half up) plus a fixed part, never above the amount. */
export function computeFee(amount: number, s: FeeSettings): number {
  const percent = Math.floor((amount * s.feeBps + 5000) / 10000);
  return Math.min(amount, percent + s.feeFixed);
}

/**
 * A sum typed by a payer in major units ("12", "12.5", "12,50") -> minor units of `currency`, or null
 * when it is not a positive amount with at most the currency's decimals within MAX_AMOUNT.
 */
export function parseMajorAmount(text: string, currency: string): number | null {
  const exp = currencyExponent(currency);
  const m = /^(\d{1,13})(?:[.,](\d+))?$/.exec(text.trim().replace(/[\s\u00a0]/g, ''));
  if (!m || (m[2] !== undefined && (m[2].length > exp || exp === 0))) return null;
  const minor = Number(m[1]) * 10 ** exp + Number((m[2] ?? '').padEnd(exp, '0') || '0');
  return isValidAmount(minor) ? minor : null;
}

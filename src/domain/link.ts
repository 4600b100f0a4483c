// The payment link aggregate: its shape, the rules of a create request, and the pure moves of a link
// (a payer reserves a use, a settled payment returns or spends it, the merchant deactivates it).
//
// Types (docs/decisions.md, "Merchant API to the letter (issue 23)"): both take a fixed amount or
// leave it to the payer, and both honour max_uses (absent: no limit). The type changes only the kind
// of QR code the link's page shows: a static link's page shows the printable QR code of its URL, a
// dynamic link's none (the customer pays through the hosted checkout, whose SBP QR code is per payment).
// Uses: `uses` counts paid payments. A payment created for the link holds a use (`holds`: payment id
// -> time of the reservation) until it settles: paid -> the hold becomes a use; failed or expired ->
// the hold is released. uses + holds never exceeds max_uses, so concurrent payers cannot overshoot.
import { currencyRefusal, isValidAmount } from './money.js';

export const LINK_TYPES = ['dynamic', 'static'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

export interface Link {
  id: string;
  merchantId: string;
  livemode: boolean;
  type: LinkType;
  /** Minor units; null when the payer enters the sum. */
  amount: number | null;
  currency: string;
  description: string | null;
  /** null: no limit. */
  maxUses: number | null;
  /** Paid payments. */
  uses: number;
  /** Payments created for the link and not settled yet: payment id -> when the use was reserved (ms). */
  holds: Record<string, number>;
  expiresAt: number | null;
  /** false once the merchant deactivated the link (for good). */
  active: boolean;
  createdAt: number;
  updatedAt: number;
  version: number;
  requestId: string;
  idempotencyKey: string | null;
  requestHash: string | null;
  /** The test clock it runs on (test mode only): its created_at and expiry follow that clock. Absent: none. */
  testClockId?: string | null;
}

/** A validated create request, in domain terms. */
export interface NewLink {
  type: LinkType;
  amount: number | null;
  currency: string;
  description: string | null;
  maxUses: number | null;
  expiresAt: number | null;
}

export interface LinkCreateContext {
  id: string; merchantId: string; livemode: boolean; requestId: string; idempotencyKey: string | null; requestHash: string | null;
  testClockId?: string | null;
}

export interface LinkInput {
  amount?: number; currency?: string; description?: string; max_uses?: number; expires_at?: string; type?: LinkType;
}

/** The furthest expires_at a link may have (a longer life is a static link without expiry). */
export const MAX_LINK_LIFETIME_MS = 366 * 24 * 3600 * 1000;
/** The largest max_uses accepted. */
export const MAX_LINK_USES = 1_000_000;

export type LinkRuleCode = 'currency_not_enabled' | 'expires_at_invalid';
export type LinkRuleResult = { ok: true; value: NewLink } | { ok: false; code: LinkRuleCode; param: string; detail?: string };

export function applyLinkRules(input: LinkInput, m: { defaultCurrency: string; currencies: string[] }, now: number): LinkRuleResult {
  const type = input.type ?? 'dynamic';
  const currency = (input.currency ?? m.defaultCurrency).toUpperCase();
  if (!m.currencies.includes(currency)) return { ok: false, code: 'currency_not_enabled', param: 'currency', detail: currencyRefusal(currency, m.currencies) };
  let expiresAt: number | null = null;
  if (input.expires_at !== undefined) {
    expiresAt = Date.parse(input.expires_at);
    if (!Number.isFinite(expiresAt) || !realDate(input.expires_at) || expiresAt <= now || expiresAt > now + MAX_LINK_LIFETIME_MS) {
      return { ok: false, code: 'expires_at_invalid', param: 'expires_at' };
    }
  }
  return {
    ok: true,
    value: { type, amount: input.amount ?? null, currency, description: input.description ?? null, maxUses: input.max_uses ?? null, expiresAt },
  };
}

/** Whether the YYYY-MM-DD part names a day of the calendar (Date.parse rolls 02-30 over to March). */
function realDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

export function createLink(input: NewLink, ctx: LinkCreateContext, now: number): Link {
  return {
    id: ctx.id, merchantId: ctx.merchantId, livemode: ctx.livemode, type: input.type, amount: input.amount, currency: input.currency,
    description: input.description, maxUses: input.maxUses, uses: 0, holds: {}, expiresAt: input.expiresAt, active: true,
    createdAt: now, updatedAt: now, version: 1, requestId: ctx.requestId, idempotencyKey: ctx.idempotencyKey, requestHash: ctx.requestHash,
    testClockId: ctx.testClockId ?? null,
  };
}

/** Whether the link's page shows the printable QR code of its URL: the one thing the type changes. */
export const showsQrCode = (l: Link): boolean => l.type === 'static';

export const heldUses = (l: Link): number => Object.keys(l.holds).length;

export type LinkRefusal = 'link_inactive' | 'link_expired' | 'link_exhausted' | 'link_busy';

/**
 * Why the link cannot take a new payment now, or null when it can. `link_exhausted`: every use is
 * paid (final); `link_busy`: the rest are held by payments in progress (may free up when they settle).
 */
export function refusalOf(l: Link, now: number): LinkRefusal | null {
  if (!l.active) return 'link_inactive';
  if (l.expiresAt !== null && now >= l.expiresAt) return 'link_expired';
  if (l.maxUses !== null && l.uses >= l.maxUses) return 'link_exhausted';
  if (l.maxUses !== null && l.uses + heldUses(l) >= l.maxUses) return 'link_busy';
  return null;
}

/**
 * The API's `active`: not deactivated, not expired, a use not yet paid. A link whose remaining uses
 * are only held by payments in progress stays active (those payments may fail and return them).
 */
export function isOpen(l: Link, now: number): boolean {
  const r = refusalOf(l, now);
  return r === null || r === 'link_busy';
}

export type ReserveResult = { ok: true; state: Link; amount: number } | { ok: false; code: LinkRefusal | 'amount_invalid' };

/**
 * A payer asks to pay: reserves one use for the payment `paymentId`. The payer's amount counts only
 * when the link has none (a fixed amount cannot be changed by the payer).
 */
export function reserve(l: Link, paymentId: string, payerAmount: number | null, now: number): ReserveResult {
  const no = refusalOf(l, now);
  if (no) return { ok: false, code: no };
  const amount = l.amount ?? payerAmount;
  if (!isValidAmount(amount)) return { ok: false, code: 'amount_invalid' };
  return { ok: true, amount, state: { ...l, holds: { ...l.holds, [paymentId]: now }, updatedAt: now, version: l.version + 1 } };
}

/** Returns the use held for `paymentId` (its payment was never created). Null when it holds none. */
export function release(l: Link, paymentIds: string[], now: number): Link | null {
  const holds = { ...l.holds };
  let changed = false;
  for (const id of paymentIds) if (id in holds) { delete holds[id]; changed = true; }
  return changed ? { ...l, holds, updatedAt: now, version: l.version + 1 } : null;
}

/** Deactivation is final and idempotent: an inactive link stays as it is (null: nothing to write). */
export function deactivate(l: Link, now: number): Link | null {
  return l.active ? { ...l, active: false, updatedAt: now, version: l.version + 1 } : null;
}

/** Holds older than this whose payment does not exist were left by a crash between reservation and create. */
export const STALE_HOLD_MS = 120_000;

export function staleHolds(l: Link, now: number): string[] {
  return Object.entries(l.holds).filter(([, at]) => now - at >= STALE_HOLD_MS).map(([id]) => id);
}

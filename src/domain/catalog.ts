// The effective method catalog of a payment: the intersection of three layers, filtered by the
// payment's amount and currency, in display order. Pure.
//   CMC  what the connector can do, platform-wide (with render mode, limits, currencies)
//   MCA  what the acquirer switched on for the merchant (no rows at all: the full capability)
//   MCS  the merchant's own toggles and display order (no row for a method: on, connector's order)
import type { MethodCode, RenderMode } from './methods.js';

export interface Capability {
  method: MethodCode; enabled: boolean; renderMode: RenderMode; displayOrder: number;
  supportsRecurring: boolean; supportsRefund: boolean; minAmount: number | null; maxAmount: number | null; currencies: string[];
}
export interface AcquirerSwitch { method: MethodCode; enabled: boolean }
export interface MerchantSetting { method: MethodCode; enabled: boolean; displayOrder: number | null }

export interface CatalogLayers { cmc: Capability[]; mca: AcquirerSwitch[]; mcs: MerchantSetting[] }

export interface EffectiveMethod {
  method: MethodCode; displayOrder: number; renderMode: RenderMode; supportsRecurring: boolean; supportsRefund: boolean;
  minAmount: number | null; maxAmount: number | null; currencies: string[];
}

/** amount and currency null: not filtered by them (the widget's merchant-wide list). */
export interface CatalogFilter { amount: number | null; currency: string | null; only: MethodCode | null }

export function resolveMethods(layers: CatalogLayers, f: CatalogFilter): EffectiveMethod[] {
  const mca = new Map(layers.mca.map((r) => [r.method, r.enabled]));
  const mcs = new Map(layers.mcs.map((r) => [r.method, r]));
  const out: EffectiveMethod[] = [];
  for (const c of layers.cmc) {
    if (!c.enabled) continue;
    if (layers.mca.length > 0 && mca.get(c.method) !== true) continue;
    const s = mcs.get(c.method);
    if (s && !s.enabled) continue;
    if (f.only !== null && c.method !== f.only) continue;
    if (f.amount !== null && c.minAmount !== null && f.amount < c.minAmount) continue;
    if (f.amount !== null && c.maxAmount !== null && f.amount > c.maxAmount) continue;
    if (f.currency !== null && c.currencies.length > 0 && !c.currencies.includes(f.currency)) continue;
    out.push({
      method: c.method, displayOrder: s?.displayOrder ?? c.displayOrder, renderMode: c.renderMode,
      supportsRecurring: c.supportsRecurring, supportsRefund: c.supportsRefund,
      minAmount: c.minAmount, maxAmount: c.maxAmount, currencies: c.currencies,
    });
  }
  return out.sort((a, b) => a.displayOrder - b.displayOrder || a.method.localeCompare(b.method));
}

/** What the page shows when the catalog cannot be read: card alone. */
export const FALLBACK_CARD: EffectiveMethod = {
  method: 'card', displayOrder: 0, renderMode: 'inline_form', supportsRecurring: false, supportsRefund: true,
  minAmount: null, maxAmount: null, currencies: [],
};

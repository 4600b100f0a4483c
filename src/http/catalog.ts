// The effective methods of a payment, from a per-process cache of the three catalog layers (at
// most CATALOG_CACHE_MS, capped at 60 s). Operator changes made through this process drop the
// cache at once; other processes see them when their entry ends. A failed lookup degrades to card.
import type pg from 'pg';
import { FALLBACK_CARD, resolveMethods, type CatalogLayers, type EffectiveMethod } from '../domain/catalog.js';
import type { Payment } from '../domain/payment.js';
import { connectorNameFor } from '../connectors/index.js';
import { loadLayers } from '../store/catalog-repo.js';
import type { Services } from './services.js';

interface Entry { layers: CatalogLayers; expires: number }
const caches = new WeakMap<pg.Pool, Map<string, Entry>>();

function cacheOf(db: pg.Pool): Map<string, Entry> {
  let c = caches.get(db);
  if (!c) { c = new Map(); caches.set(db, c); }
  return c;
}

/** Forgets every cached catalog of this database (an operator changed a layer). */
export function invalidateCatalog(db: pg.Pool): void { cacheOf(db).clear(); }

export interface Effective { methods: EffectiveMethod[]; fallback: boolean }

/** What the effective list depends on: the merchant, the mode, the amount and currency, and what the payment or session narrowed. */
export type CatalogSubject = Pick<Payment, 'merchantId' | 'livemode' | 'method' | 'session'> & { amount: number | null; currency: string | null };

export async function effectiveMethods(s: Services, p: CatalogSubject): Promise<Effective> {
  const connector = connectorNameFor(p.livemode);
  const key = `${p.merchantId}:${connector}`;
  const cache = cacheOf(s.db);
  const now = Date.now();
  let layers = cache.get(key);
  if (!layers || layers.expires <= now) {
    try {
      layers = { layers: await loadLayers(s.db, p.merchantId, connector), expires: now + s.config.catalogCacheMs };
      if (s.config.catalogCacheMs > 0) {
        if (cache.size > 10_000) cache.clear();
        cache.set(key, layers);
      }
    } catch (err) {
      s.log.warn({ err: (err as Error).message, merchantId: p.merchantId }, 'method catalog lookup failed; offering card only');
      return { methods: [FALLBACK_CARD], fallback: true };
    }
  }
  const methods = resolveMethods(layers.layers, { amount: p.amount, currency: p.currency, only: p.method });
  // A gateway session's settings.payment_methods narrows the list further (checked a subset at creation).
  const only = p.session?.paymentMethods;
  return { methods: only ? methods.filter((m) => only.includes(m.method)) : methods, fallback: false };
}

// API key authentication with a short-lived in-memory cache in front of Postgres. Revocation and
// merchant changes made through this process drop cache entries at once; changes made by another
// process are seen within AUTH_CACHE_MS.
import { createHash, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { hashKey } from '../domain/ids.js';
import { gatewayPrefixOf } from '../domain/permissions.js';
import { fail, type ApiFailure } from '../errors.js';
import { findActiveKey, type ApiKeyRecord, type Merchant } from '../store/merchants-repo.js';

export interface Principal { key: ApiKeyRecord; merchant: Merchant; livemode: boolean }

/**
 * `403 api_disabled` names the valid key it refuses, so the answer can still count it against the
 * key's rate limit and carry the X-RateLimit-* headers (merchant spec: "on every response").
 */
export type KeyRefusal = ApiFailure & { disabledKey?: Principal };


/** Key prefixes per API. The merchant API takes svc_ keys; the gateway takes sk_ and rk_ (pk_ for the widget). */
export const MERCHANT_PREFIXES = ['svc_test_', 'svc_live_'];

/** What a key's prefix says it is: its kind (as api_keys.kind stores it) and mode. */
interface KeyShape { kind: string; mode: 'test' | 'live' }

const merchantPrefixOf = (key: string): KeyShape | null =>
  key.startsWith('svc_test_') ? { kind: 'merchant', mode: 'test' } : key.startsWith('svc_live_') ? { kind: 'merchant', mode: 'live' } : null;

interface Entry { value: { key: ApiKeyRecord; merchant: Merchant } | null; expires: number }

/** Keys whose SHA-256 is remembered (a hash per request was ~4 % of the main thread under load). */
const HASHES_MAX = 10_000;

export class Authenticator {
  private readonly cache = new Map<string, Entry>();
  /** Presented key -> its hash: the hash is a pure function of the key, so this never goes stale. */
  private readonly hashes = new Map<string, string>();
  private readonly loading = new Map<string, Promise<Entry['value']>>();
  private generation = 0;

  constructor(private readonly db: pg.Pool, private readonly ttlMs: number) {}

  /** Reads `Authorization: Bearer <key>` and resolves the key's merchant. */
  async merchantApi(authorization: string | undefined): Promise<Principal | KeyRefusal> {
    const key = bearer(authorization);
    if (!key) return fail('authentication_required');
    if (key.length > 200) return fail('api_key_invalid');
    if (!MERCHANT_PREFIXES.some((p) => key.startsWith(p))) {
      const other = gatewayPrefixOf(key);
      return other ? this.otherApi(key, other, 'merchant') : fail('api_key_invalid');
    }
    const found = await this.find(key);
    if (!found || found.key.kind !== 'merchant') return fail('api_key_invalid');
    if (!found.merchant.apiEnabled) return { ...fail('api_disabled'), disabledKey: { ...found, livemode: found.key.mode === 'live' } };
    return { ...found, livemode: found.key.mode === 'live' };
  }

  /**
   * The gateway API's key: `Authorization: Bearer <key>` or the legacy `X-API-Key: <key>`, never
   * both (400). Accepts sk_, rk_ and pk_ keys of either mode; what the key may do is decided by
   * the caller (src/domain/permissions.ts).
   */
  async gatewayApi(authorization: string | undefined, xApiKey: string | undefined): Promise<Principal | ApiFailure> {
    if (authorization !== undefined && xApiKey !== undefined) {
      return fail('validation_error', 'X-API-Key', 'send the key in Authorization or in X-API-Key, not both');
    }
    const key = authorization !== undefined ? bearer(authorization) : xApiKey?.trim() || null;
    if (!key) return fail(authorization !== undefined ? 'api_key_invalid' : 'authentication_required');
    if (key.length > 200) return fail('api_key_invalid');
    const prefix = gatewayPrefixOf(key);
    if (!prefix) {
      const other = merchantPrefixOf(key);
      return other ? this.otherApi(key, other, 'gateway') : fail('api_key_invalid');
    }
    const found = await this.find(key);
    if (!found || found.key.kind !== prefix.kind || found.key.mode !== prefix.mode) return fail('api_key_invalid');
    if (!found.merchant.apiEnabled) return fail('api_disabled');
    return { ...found, livemode: found.key.mode === 'live' };
  }

  /** The active key's record, from the cache without an extra turn of the event loop when it can. */
  private async find(key: string): Promise<Entry['value']> {
    const hash = this.hashOf(key);
    const hit = this.cache.get(hash);
    return hit && hit.expires > Date.now() ? hit.value : this.lookup(hash);
  }

  /**
   * A key shaped for the other API. Only a key that exists, is active and is of the kind its prefix
   * names is told where it belongs: anything else (unknown, revoked, a guess) gets the same plain
   * api_key_invalid as any bad key, after the same lookup, so the hint reveals nothing of keys that
   * do not work anyway.
   */
  private async otherApi(key: string, shape: KeyShape, here: 'merchant' | 'gateway'): Promise<ApiFailure> {
    const found = await this.find(key);
    if (!found || found.key.kind !== shape.kind || found.key.mode !== shape.mode) return fail('api_key_invalid');
    const where = here === 'merchant'
      ? shape.kind === 'publishable' ? 'a publishable key of the gateway API: it works on /widget/v1/…' : `a ${shape.kind} key of the gateway API: send it to /v2/…`
      : 'a key of the merchant API: send it to /api/v2/…';
    return fail('api_key_wrong_api', null, `this is ${where}`);
  }

  private hashOf(key: string): string {
    let h = this.hashes.get(key);
    if (h === undefined) {
      if (this.hashes.size >= HASHES_MAX) this.hashes.clear();
      h = hashKey(key);
      this.hashes.set(key, h);
    }
    return h;
  }

  /** One Postgres lookup per key at a time: a burst on a cold cache shares it. */
  private lookup(hash: string): Promise<Entry['value']> {
    const shared = this.loading.get(hash);
    if (shared) return shared;
    const p: Promise<Entry['value']> = this.load(hash).finally(() => { if (this.loading.get(hash) === p) this.loading.delete(hash); });
    this.loading.set(hash, p);
    return p;
  }

  private async load(hash: string): Promise<Entry['value']> {
    const now = Date.now();
    const hit = this.cache.get(hash);
    if (hit && hit.expires > now) return hit.value;
    const generation = this.generation;
    const value = await findActiveKey(this.db, hash);
    // A key or merchant changed while this lookup ran: its answer may predate the change; not kept.
    if (this.ttlMs > 0 && generation === this.generation) {
      if (this.cache.size > 100_000) this.cache.clear();
      this.cache.set(hash, { value, expires: now + this.ttlMs });
    }
    return value;
  }

  /** Lookups started before a change must not answer requests that arrive after it. */
  private changed(): void { this.generation++; this.loading.clear(); }

  forgetKey(hash: string): void { this.changed(); this.cache.delete(hash); }

  forgetMerchant(merchantId: string): void {
    this.changed();
    for (const [h, e] of this.cache) if (e.value?.merchant.id === merchantId) this.cache.delete(h);
  }

  /** New keys must not be shadowed by a cached "unknown key" answer. */
  forgetUnknown(): void {
    this.changed();
    for (const [h, e] of this.cache) if (e.value === null) this.cache.delete(h);
  }
}

export function bearer(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : null;
}

/** Constant-time comparison of an operator token. */
export function tokenMatches(given: string | null, expected: string): boolean {
  if (!given) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

// SQL for merchants and their API keys. Only a SHA-256 hash of a key is stored.
import type pg from 'pg';
import { columns } from './columns.js';

export interface Merchant {
  id: string; name: string; defaultCurrency: string; currencies: string[]; apiEnabled: boolean;
  rateLimitPerMinute: number | null; feeBps: number; feeFixed: number; isDemo: boolean;
  /** Origins allowed to frame the hosted page (src/domain/frame-origins.ts); empty: none. */
  allowedDomains: string[];
  /** Raw card data accepted through POST /v2/payments (set by the operator; PCI). */
  cardDataAllowed: boolean;
  createdAt: number; updatedAt: number;
}

export type KeyKind = 'merchant' | 'secret' | 'restricted' | 'publishable';
export type KeyMode = 'test' | 'live';

export interface ApiKeyRecord {
  id: string; merchantId: string; kind: KeyKind; mode: KeyMode; keyHint: string; channelId: string | null;
  permissions: string[] | null; label: string | null; createdAt: number; revokedAt: number | null;
}

interface MerchantRow {
  id: string; name: string; default_currency: string; currencies: string[]; api_enabled: boolean;
  rate_limit_per_minute: number | null; fee_bps: number; fee_fixed: number; is_demo: boolean; created_at: Date; updated_at: Date;
  allowed_domains: string[] | null; card_data_allowed?: boolean;
}

const toMerchant = (r: MerchantRow): Merchant => ({
  id: r.id, name: r.name, defaultCurrency: r.default_currency, currencies: r.currencies, apiEnabled: r.api_enabled,
  rateLimitPerMinute: r.rate_limit_per_minute, feeBps: r.fee_bps, feeFixed: Number(r.fee_fixed), isDemo: r.is_demo,
  allowedDomains: r.allowed_domains ?? [], cardDataAllowed: r.card_data_allowed ?? false,
  createdAt: r.created_at.getTime(), updatedAt: r.updated_at.getTime(),
});

interface KeyRow {
  id: string; merchant_id: string; kind: KeyKind; mode: KeyMode; key_hint: string; channel_id: string | null;
  permissions: string[] | null; label: string | null; created_at: Date; revoked_at: Date | null;
}

const toKey = (r: KeyRow): ApiKeyRecord => ({
  id: r.id, merchantId: r.merchant_id, kind: r.kind, mode: r.mode, keyHint: r.key_hint, channelId: r.channel_id,
  permissions: r.permissions, label: r.label, createdAt: r.created_at.getTime(),
  revokedAt: r.revoked_at ? r.revoked_at.getTime() : null,
});

/** Ids and webhook secrets of a new merchant's two default channels (test, live). */
export interface DefaultChannels { ids: [string, string]; secrets: [string, string] }

/** Inserts a merchant with its default test and live channels, in one statement. */
export async function insertMerchant(db: pg.Pool, m: Omit<Merchant, 'createdAt' | 'updatedAt' | 'allowedDomains' | 'cardDataAllowed'>, ch: DefaultChannels): Promise<Merchant> {
  const res = await db.query<MerchantRow>(
    `WITH m AS (
       INSERT INTO merchants (id, name, default_currency, currencies, api_enabled, rate_limit_per_minute, fee_bps, fee_fixed, is_demo)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *),
     c AS (
       INSERT INTO channels (id, merchant_id, livemode, slug, name, is_default, webhook_secret)
       SELECT v.id, m.id, v.livemode, 'default', 'Default', true, v.secret
       FROM m, (VALUES ($10::text, false, $11::text), ($12::text, true, $13::text)) AS v(id, livemode, secret))
     SELECT * FROM m`,
    [m.id, m.name, m.defaultCurrency, m.currencies, m.apiEnabled, m.rateLimitPerMinute, m.feeBps, m.feeFixed, m.isDemo,
      ch.ids[0], ch.secrets[0], ch.ids[1], ch.secrets[1]]);
  return toMerchant(res.rows[0]);
}

export async function getMerchant(db: pg.Pool, id: string): Promise<Merchant | null> {
  const res = await db.query<MerchantRow>({ name: 'merchant_by_id', text: `SELECT ${columns('merchants')} FROM merchants WHERE id = $1`, values: [id] });
  return res.rows[0] ? toMerchant(res.rows[0]) : null;
}

export async function findDemoMerchant(db: pg.Pool): Promise<Merchant | null> {
  const res = await db.query<MerchantRow>('SELECT * FROM merchants WHERE is_demo ORDER BY created_at LIMIT 1');
  return res.rows[0] ? toMerchant(res.rows[0]) : null;
}

export type MerchantPatch = Partial<Pick<Merchant, 'name' | 'defaultCurrency' | 'currencies' | 'apiEnabled' | 'rateLimitPerMinute' | 'feeBps' | 'feeFixed' | 'allowedDomains' | 'cardDataAllowed'>>;

const PATCH_COLUMNS: Record<keyof MerchantPatch, string> = {
  name: 'name', defaultCurrency: 'default_currency', currencies: 'currencies', apiEnabled: 'api_enabled',
  rateLimitPerMinute: 'rate_limit_per_minute', feeBps: 'fee_bps', feeFixed: 'fee_fixed',
  allowedDomains: 'allowed_domains', cardDataAllowed: 'card_data_allowed',
};

export async function updateMerchant(db: pg.Pool, id: string, patch: MerchantPatch): Promise<Merchant | null> {
  const sets: string[] = [];
  const values: unknown[] = [id];
  for (const [k, col] of Object.entries(PATCH_COLUMNS) as [keyof MerchantPatch, string][]) {
    if (patch[k] === undefined) continue;
    values.push(patch[k]);
    sets.push(`${col} = $${values.length}`);
  }
  if (sets.length === 0) return getMerchant(db, id);
  const res = await db.query<MerchantRow>(
    `UPDATE merchants SET ${sets.join(', ')}, updated_at = now(), version = version + 1 WHERE id = $1 RETURNING *`, values);
  return res.rows[0] ? toMerchant(res.rows[0]) : null;
}

export async function insertApiKey(db: pg.Pool, k: Omit<ApiKeyRecord, 'createdAt' | 'revokedAt'> & { keyHash: string }): Promise<ApiKeyRecord> {
  const res = await db.query<KeyRow>(
    `INSERT INTO api_keys (id, merchant_id, kind, mode, key_hash, key_hint, channel_id, permissions, label)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [k.id, k.merchantId, k.kind, k.mode, k.keyHash, k.keyHint, k.channelId, k.permissions, k.label]);
  return toKey(res.rows[0]);
}

/** The active key with this hash, with its merchant, in one round trip. */
export async function findActiveKey(db: pg.Pool, keyHash: string): Promise<{ key: ApiKeyRecord; merchant: Merchant } | null> {
  const res = await db.query({
    name: 'key_by_hash',
    text: `SELECT to_jsonb(k) AS k, to_jsonb(m) AS m FROM api_keys k JOIN merchants m ON m.id = k.merchant_id
           WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
    values: [keyHash],
  });
  if (!res.rows[0]) return null;
  const dates = <T extends Record<string, unknown>>(o: T, cols: string[]) => {
    for (const c of cols) if (o[c] != null) (o as Record<string, unknown>)[c] = new Date(o[c] as string);
    return o;
  };
  return {
    key: toKey(dates(res.rows[0].k, ['created_at', 'revoked_at']) as unknown as KeyRow),
    merchant: toMerchant(dates(res.rows[0].m, ['created_at', 'updated_at']) as unknown as MerchantRow),
  };
}

export async function listApiKeys(db: pg.Pool, merchantId: string): Promise<ApiKeyRecord[]> {
  const res = await db.query<KeyRow>('SELECT * FROM api_keys WHERE merchant_id = $1 ORDER BY created_at', [merchantId]);
  return res.rows.map(toKey);
}

/** Revokes a key; returns its hash so caches can drop it at once, or null when no such key. */
export async function revokeApiKey(db: pg.Pool, merchantId: string, keyId: string): Promise<string | null> {
  const res = await db.query(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND merchant_id = $2 RETURNING key_hash`,
    [keyId, merchantId]);
  return res.rows[0]?.key_hash ?? null;
}

/** Revokes every key of the demo merchant carrying this label (each start issues fresh demo keys). */
export async function revokeLabelledKeys(db: pg.Pool, merchantId: string, label: string): Promise<string[]> {
  const res = await db.query(
    `UPDATE api_keys SET revoked_at = now() WHERE merchant_id = $1 AND label = $2 AND revoked_at IS NULL RETURNING key_hash`,
    [merchantId, label]);
  return res.rows.map((r) => r.key_hash as string);
}

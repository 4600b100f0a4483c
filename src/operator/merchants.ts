// Creating merchants and issuing their API keys: shared by the operator API (/internal) and the
// zero-configuration demo. Takes plain data and the database; the caller drops its auth cache.
import type pg from 'pg';
import { KEY_PREFIX, type CreateApiKeyRequest, type CreateMerchantRequest } from '../api/internal.js';
import { apiKeyId, apiKeySecret, hashKey, merchantId } from '../domain/ids.js';
import { insertApiKey, insertMerchant, type ApiKeyRecord, type Merchant } from '../store/merchants-repo.js';

export const DEFAULT_CURRENCIES = ['AZN', 'RUB', 'USD', 'EUR'];

export type NewMerchant = CreateMerchantRequest & { is_demo?: boolean };

/** Inserts a merchant; refuses a default currency outside its currencies. */
export async function createMerchant(db: pg.Pool, body: NewMerchant): Promise<Merchant | { code: 'parameter_invalid'; param: string }> {
  const currencies = body.currencies?.map((c) => c.toUpperCase()) ?? DEFAULT_CURRENCIES;
  const defaultCurrency = body.default_currency?.toUpperCase() ?? (currencies.includes('AZN') ? 'AZN' : currencies[0]);
  if (!currencies.includes(defaultCurrency)) return { code: 'parameter_invalid', param: 'default_currency' };
  return insertMerchant(db, {
    id: merchantId(), name: body.name, defaultCurrency, currencies, apiEnabled: body.api_enabled ?? true,
    rateLimitPerMinute: body.rate_limit_per_minute ?? null, feeBps: Math.round((body.fee_percent ?? 0) * 100),
    feeFixed: body.fee_fixed ?? 0, isDemo: body.is_demo ?? false,
  });
}

/** Issues a key; the secret is returned once and only its hash is stored. */
export async function issueKey(db: pg.Pool, merchant: string, body: CreateApiKeyRequest): Promise<{ record: ApiKeyRecord; secret: string }> {
  const prefix = `${KEY_PREFIX[body.kind]}${body.mode}_`;
  const secret = apiKeySecret(prefix);
  const record = await insertApiKey(db, {
    id: apiKeyId(), merchantId: merchant, kind: body.kind, mode: body.mode, keyHash: hashKey(secret),
    keyHint: `${prefix}…${secret.slice(-4)}`, channelId: body.channel_id ?? null, permissions: body.permissions ?? null,
    label: body.label ?? null,
  });
  return { record, secret };
}

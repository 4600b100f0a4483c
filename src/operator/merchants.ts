// Creating merchants and issuing their API keys: shared by the operator API (/internal) and the
// zero-configuration demo. Takes plain data and the database; the caller drops its auth cache.
import type pg from 'pg';
import { KEY_PREFIX, type CreateApiKeyRequest, type CreateMerchantRequest } from '../api/internal.js';
import { parseChannelRef } from '../domain/channel.js';
import { apiKeyId, apiKeySecret, hashKey, merchantId } from '../domain/ids.js';
import { fail, type ApiFailure } from '../errors.js';
import { channelId, findChannel } from '../store/channels-repo.js';
import { insertApiKey, insertMerchant, type ApiKeyRecord, type Merchant } from '../store/merchants-repo.js';
import { newSecret } from '../store/webhooks-repo.js';

export const DEFAULT_CURRENCIES = ['AZN', 'RUB', 'USD', 'EUR'];

export type NewMerchant = CreateMerchantRequest & { is_demo?: boolean };

/** Inserts a merchant with its default test and live channels; refuses a default currency outside its currencies. */
export async function createMerchant(db: pg.Pool, body: NewMerchant): Promise<Merchant | { code: 'parameter_invalid'; param: string }> {
  const currencies = body.currencies?.map((c) => c.toUpperCase()) ?? DEFAULT_CURRENCIES;
  const defaultCurrency = body.default_currency?.toUpperCase() ?? (currencies.includes('AZN') ? 'AZN' : currencies[0]);
  if (!currencies.includes(defaultCurrency)) return { code: 'parameter_invalid', param: 'default_currency' };
  return insertMerchant(db, {
    id: merchantId(), name: body.name, defaultCurrency, currencies, apiEnabled: body.api_enabled ?? true,
    rateLimitPerMinute: body.rate_limit_per_minute ?? null, feeBps: Math.round((body.fee_percent ?? 0) * 100),
    feeFixed: body.fee_fixed ?? 0, isDemo: body.is_demo ?? false,
  }, { ids: [channelId(), channelId()], secrets: [newSecret(), newSecret()] });
}

/**
 * Checks what a key of this kind may carry: permissions only on restricted keys, a channel only on
 * gateway keys, naming a channel of this merchant in the key's mode that is not deleted (stored as
 * its public id whichever form was given).
 */
async function keyScope(db: pg.Pool, merchant: string, body: CreateApiKeyRequest): Promise<{ channelId: string | null } | ApiFailure> {
  if (body.permissions !== undefined && body.kind !== 'restricted') {
    return fail('parameter_invalid', 'permissions', 'permissions are given to restricted keys only');
  }
  if (body.channel_id === undefined) return { channelId: null };
  if (body.kind === 'merchant') return fail('parameter_invalid', 'channel_id', 'the merchant API has no channels');
  const ref = parseChannelRef(body.channel_id);
  const ch = ref ? await findChannel(db, { merchantId: merchant, livemode: body.mode === 'live' }, ref) : null;
  if (!ch || ch.status === 'deleted') return fail('channel_not_found', 'channel_id', `no ${body.mode} channel ${body.channel_id}`);
  return { channelId: ch.id };
}

/** Issues a key; the secret is returned once and only its hash is stored. */
export async function issueKey(db: pg.Pool, merchant: string, body: CreateApiKeyRequest): Promise<{ record: ApiKeyRecord; secret: string } | ApiFailure> {
  const scope = await keyScope(db, merchant, body);
  if ('code' in scope) return scope;
  const prefix = `${KEY_PREFIX[body.kind]}${body.mode}_`;
  const secret = apiKeySecret(prefix);
  try {
    const record = await insertApiKey(db, {
      id: apiKeyId(), merchantId: merchant, kind: body.kind, mode: body.mode, keyHash: hashKey(secret),
      keyHint: `${prefix}…${secret.slice(-4)}`, channelId: scope.channelId,
      permissions: body.kind === 'restricted' ? body.permissions ?? [] : null, label: body.label ?? null,
    });
    return { record, secret };
  } catch (err) {
    // The channel was hard-deleted between the check and the insert (its foreign key refused the key).
    if ((err as { constraint?: string }).constraint === 'api_keys_channel') return fail('channel_not_found', 'channel_id');
    throw err;
  }
}

// Operator endpoints under /internal, authenticated by the ADMIN_TOKEN bearer.
import { CreateApiKeyRequestBody, CreateMerchantRequest, keyRequestOf, keyScopeOf, PatchMerchantRequest } from '../../api/internal.js';
import { compile } from '../../api/validate.js';
import { checkFrameOrigins } from '../../domain/frame-origins.js';
import { fail } from '../../errors.js';
import { createMerchant, issueKey } from '../../operator/merchants.js';
import {
  getMerchant, listApiKeys, revokeApiKey, updateMerchant, type ApiKeyRecord, type Merchant, type MerchantPatch,
} from '../../store/merchants-repo.js';
import type { Ctx } from '../context.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';
import { isoOrNull } from '../../domain/instant.js';

const validateCreate = compile(CreateMerchantRequest, {});
const validatePatch = compile(PatchMerchantRequest, { allowed_domains: 'allowed_domain_invalid' });
const validateKey = compile(CreateApiKeyRequestBody, {});


export const merchantView = (m: Merchant) => ({
  id: m.id, object: 'merchant', name: m.name, default_currency: m.defaultCurrency, currencies: m.currencies,
  api_enabled: m.apiEnabled, rate_limit_per_minute: m.rateLimitPerMinute, fee_percent: m.feeBps / 100, fee_fixed: m.feeFixed,
  allowed_domains: m.allowedDomains, card_data_allowed: m.cardDataAllowed,
  created_at: isoOrNull(m.createdAt), updated_at: isoOrNull(m.updatedAt),
});

export const keyView = (k: ApiKeyRecord, secret?: string) => ({
  id: k.id, object: 'api_key', ...(secret ? { key: secret } : {}), kind: k.kind, scope: keyScopeOf(k), mode: k.mode, key_hint: k.keyHint,
  channel_id: k.channelId, permissions: k.permissions, label: k.label, created_at: isoOrNull(k.createdAt), revoked_at: isoOrNull(k.revokedAt),
});

const upper = (c?: string) => c?.toUpperCase();

async function postMerchant(ctx: Ctx, s: Services, raw: unknown) {
  const v = validateCreate(raw);
  if (!v.ok) return sendFailure(ctx, v.failure);
  const m = await createMerchant(s.db, v.value);
  if ('code' in m) return sendFailure(ctx, fail(m.code, m.param, 'default_currency must be one of currencies'));
  sendJson(ctx, 201, merchantView(m));
}

async function getMerchantRoute(ctx: Ctx, s: Services) {
  const m = await getMerchant(s.db, ctx.params[0]);
  if (!m) return sendFailure(ctx, fail('merchant_not_found', 'id'));
  sendJson(ctx, 200, merchantView(m));
}

async function patchMerchant(ctx: Ctx, s: Services, raw: unknown) {
  const v = validatePatch(raw);
  if (!v.ok) return sendFailure(ctx, v.failure);
  const current = await getMerchant(s.db, ctx.params[0]);
  if (!current) return sendFailure(ctx, fail('merchant_not_found', 'id'));
  const b = v.value;
  const origins = b.allowed_domains === undefined ? undefined : checkFrameOrigins(b.allowed_domains);
  if (origins && !origins.ok) {
    const param = origins.index === null ? 'allowed_domains' : `allowed_domains.${origins.index}`;
    return sendFailure(ctx, fail('allowed_domain_invalid', param, origins.reason));
  }
  const patch: MerchantPatch = {
    name: b.name, apiEnabled: b.api_enabled, feeFixed: b.fee_fixed,
    feeBps: b.fee_percent === undefined ? undefined : Math.round(b.fee_percent * 100),
    rateLimitPerMinute: b.rate_limit_per_minute, currencies: b.currencies?.map((c) => c.toUpperCase()),
    defaultCurrency: upper(b.default_currency), allowedDomains: origins?.ok ? origins.origins : undefined,
    cardDataAllowed: b.card_data_allowed,
  };
  const currencies = patch.currencies ?? current.currencies;
  if (!currencies.includes(patch.defaultCurrency ?? current.defaultCurrency)) {
    return sendFailure(ctx, fail('parameter_invalid', 'default_currency', 'default_currency must be one of currencies'));
  }
  const m = await updateMerchant(s.db, ctx.params[0], patch);
  if (!m) return sendFailure(ctx, fail('merchant_not_found', 'id'));
  s.auth.forgetMerchant(m.id);
  sendJson(ctx, 200, merchantView(m));
}

async function postKey(ctx: Ctx, s: Services, raw: unknown) {
  const v = validateKey(raw);
  if (!v.ok) return sendFailure(ctx, v.failure);
  const req = keyRequestOf(v.value);
  if ('code' in req) return sendFailure(ctx, req);
  if (!(await getMerchant(s.db, ctx.params[0]))) return sendFailure(ctx, fail('merchant_not_found', 'id'));
  const issued = await issueKey(s.db, ctx.params[0], req);
  if ('code' in issued) return sendFailure(ctx, issued);
  const { record, secret } = issued;
  s.auth.forgetUnknown();
  sendJson(ctx, 201, keyView(record, secret));
}

async function listKeys(ctx: Ctx, s: Services) {
  if (!(await getMerchant(s.db, ctx.params[0]))) return sendFailure(ctx, fail('merchant_not_found', 'id'));
  const keys = await listApiKeys(s.db, ctx.params[0]);
  sendJson(ctx, 200, { object: 'list', data: keys.map((k) => keyView(k)), request_id: ctx.requestId });
}

async function deleteKey(ctx: Ctx, s: Services) {
  const hash = await revokeApiKey(s.db, ctx.params[0], ctx.params[1]);
  if (!hash) return sendFailure(ctx, fail('api_key_not_found', 'key_id'));
  s.auth.forgetKey(hash);
  sendJson(ctx, 200, { id: ctx.params[1], object: 'api_key', revoked: true, request_id: ctx.requestId });
}

export const internalRoutes: Route[] = [
  { method: 'POST', path: '/internal/merchants', api: 'internal', auth: 'admin', body: true, handler: postMerchant },
  { method: 'GET', path: '/internal/merchants/:id', api: 'internal', auth: 'admin', handler: getMerchantRoute },
  { method: 'PATCH', path: '/internal/merchants/:id', api: 'internal', auth: 'admin', body: true, handler: patchMerchant },
  { method: 'POST', path: '/internal/merchants/:id/api-keys', api: 'internal', auth: 'admin', body: true, handler: postKey },
  { method: 'GET', path: '/internal/merchants/:id/api-keys', api: 'internal', auth: 'admin', handler: listKeys },
  { method: 'DELETE', path: '/internal/merchants/:id/api-keys/:keyId', api: 'internal', auth: 'admin', handler: deleteKey },
];

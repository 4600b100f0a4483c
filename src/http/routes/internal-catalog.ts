// Operator endpoints (ADMIN_TOKEN) for the three layers of the method catalog:
//   CMC  GET /internal/catalog/capabilities, PUT /internal/catalog/capabilities/{connector}/{method}
//   MCA  PUT /internal/merchants/{id}/connector-methods/{connector}/{method}  {enabled}
//   MCS  PUT /internal/merchants/{id}/method-settings/{method}               {enabled, display_order}
//        GET /internal/merchants/{id}/method-catalog?connector=sandbox      the three layers as stored
import { AcquirerSwitchRequest, CapabilityRequest, MerchantSettingRequest } from '../../api/checkout.js';
import { compile } from '../../api/validate.js';
import { isMethodCode, type MethodCode } from '../../domain/methods.js';
import { fail } from '../../errors.js';
import { listCapabilities, loadLayers, setAcquirerSwitch, setMerchantSetting, upsertCapability } from '../../store/catalog-repo.js';
import { getMerchant } from '../../store/merchants-repo.js';
import { invalidateCatalog } from '../catalog.js';
import type { Ctx } from '../context.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

const CONNECTORS = ['sandbox', 'live'];
const validateCap = compile(CapabilityRequest, {});
const validateSwitch = compile(AcquirerSwitchRequest, {});
const validateSetting = compile(MerchantSettingRequest, {});

function methodParam(ctx: Ctx, value: string): MethodCode | null {
  if (isMethodCode(value)) return value;
  sendFailure(ctx, fail('method_code_invalid', 'method'));
  return null;
}

function connectorParam(ctx: Ctx, value: string): string | null {
  if (CONNECTORS.includes(value)) return value;
  sendFailure(ctx, fail('parameter_invalid', 'connector', `one of ${CONNECTORS.join(', ')}`));
  return null;
}

async function merchantParam(ctx: Ctx, s: Services): Promise<string | null> {
  if (await getMerchant(s.db, ctx.params[0])) return ctx.params[0];
  sendFailure(ctx, fail('merchant_not_found', 'id'));
  return null;
}

async function capabilities(ctx: Ctx, s: Services) {
  const data = await listCapabilities(s.db);
  sendJson(ctx, 200, { object: 'list', data, request_id: ctx.requestId });
}

async function putCapability(ctx: Ctx, s: Services, raw: unknown) {
  const connector = connectorParam(ctx, ctx.params[0]);
  const method = connector && methodParam(ctx, ctx.params[1]);
  if (!connector || !method) return;
  const v = validateCap(raw);
  if (!v.ok) return sendFailure(ctx, v.failure);
  await upsertCapability(s.db, connector, method, v.value);
  invalidateCatalog(s.db);
  sendJson(ctx, 200, { object: 'list', data: (await listCapabilities(s.db)).filter((c) => c.connector === connector), request_id: ctx.requestId });
}

async function putSwitch(ctx: Ctx, s: Services, raw: unknown) {
  const connector = connectorParam(ctx, ctx.params[1]);
  const method = connector && methodParam(ctx, ctx.params[2]);
  if (!connector || !method) return;
  const v = validateSwitch(raw);
  if (!v.ok) return sendFailure(ctx, v.failure);
  const merchant = await merchantParam(ctx, s);
  if (!merchant) return;
  await setAcquirerSwitch(s.db, merchant, connector, method, v.value.enabled);
  invalidateCatalog(s.db);
  sendJson(ctx, 200, { ...(await loadLayers(s.db, merchant, connector)), request_id: ctx.requestId });
}

async function putSetting(ctx: Ctx, s: Services, raw: unknown) {
  const method = methodParam(ctx, ctx.params[1]);
  if (!method) return;
  const v = validateSetting(raw);
  if (!v.ok) return sendFailure(ctx, v.failure);
  const merchant = await merchantParam(ctx, s);
  if (!merchant) return;
  await setMerchantSetting(s.db, merchant, method, v.value.enabled, v.value.display_order ?? null);
  invalidateCatalog(s.db);
  sendJson(ctx, 200, { ...(await loadLayers(s.db, merchant, 'sandbox')), request_id: ctx.requestId });
}

async function layers(ctx: Ctx, s: Services) {
  const connector = connectorParam(ctx, new URLSearchParams(ctx.query).get('connector') ?? 'sandbox');
  if (!connector) return;
  const merchant = await merchantParam(ctx, s);
  if (!merchant) return;
  sendJson(ctx, 200, { ...(await loadLayers(s.db, merchant, connector)), request_id: ctx.requestId });
}

export const internalCatalogRoutes: Route[] = [
  { method: 'GET', path: '/internal/catalog/capabilities', api: 'internal', auth: 'admin', handler: capabilities },
  { method: 'PUT', path: '/internal/catalog/capabilities/:connector/:method', api: 'internal', auth: 'admin', body: true, handler: putCapability },
  { method: 'PUT', path: '/internal/merchants/:id/connector-methods/:connector/:method', api: 'internal', auth: 'admin', body: true, handler: putSwitch },
  { method: 'PUT', path: '/internal/merchants/:id/method-settings/:method', api: 'internal', auth: 'admin', body: true, handler: putSetting },
  { method: 'GET', path: '/internal/merchants/:id/method-catalog', api: 'internal', auth: 'admin', handler: layers },
];

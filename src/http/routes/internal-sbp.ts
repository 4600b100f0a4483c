// Operator endpoints (ADMIN_TOKEN) of the SBP member list, the source of the public bank lists and
// of the submit-method whitelist:
//   GET    /internal/sbp/members              every row, active or not
//   POST   /internal/sbp/members              create or replace one member (201 created, 200 replaced)
//   GET    /internal/sbp/members/{member_id}
//   PATCH  /internal/sbp/members/{member_id}  change some fields
//   DELETE /internal/sbp/members/{member_id}  remove for good (PATCH active:false keeps the row)
// Every change commits, then invalidates the cached list (`cache_invalidated` says whether that
// reached the key-value store; if not, the public lists may lag for up to 300 s).
import { PatchSbpMemberRequest, SBP_MEMBER_FIELD_CODES, UpsertSbpMemberRequest } from '../../api/sbp-members.js';
import { compile } from '../../api/validate.js';
import { MEMBER_ID_RE, deeplinkProblem, logoUrlProblem, nameProblem } from '../../domain/sbp-member.js';
import { fail, type ApiFailure } from '../../errors.js';
import {
  deleteSbpMember, getSbpMember, listAllSbpMembers, patchSbpMember, upsertSbpMember,
} from '../../store/sbp-members-repo.js';
import type { Ctx } from '../context.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import { invalidateSbpMembers } from '../sbp-list.js';
import type { Services } from '../services.js';

const validateUpsert = compile(UpsertSbpMemberRequest, SBP_MEMBER_FIELD_CODES);
const validatePatch = compile(PatchSbpMemberRequest, SBP_MEMBER_FIELD_CODES);

interface Fields {
  name?: { en?: string; ru?: string; az?: string }; logo_url?: string; deeplink_ios?: string; deeplink_android?: string;
}

/** The rules beyond the schema (src/domain/sbp-member.ts): the first problem, or null. */
function fieldProblem(b: Fields): ApiFailure | null {
  for (const lang of ['en', 'ru', 'az'] as const) {
    const v = b.name?.[lang];
    const p = v === undefined ? null : nameProblem(v);
    if (p) return fail('parameter_invalid', `name.${lang}`, p);
  }
  if (b.logo_url !== undefined) {
    const p = logoUrlProblem(b.logo_url);
    if (p) return fail('parameter_invalid', 'logo_url', p);
  }
  for (const k of ['deeplink_ios', 'deeplink_android'] as const) {
    const p = b[k] === undefined ? null : deeplinkProblem(b[k]!);
    if (p) return fail('parameter_invalid', k, p);
  }
  return null;
}

function memberIdParam(ctx: Ctx): string | null {
  const id = ctx.params[0];
  if (MEMBER_ID_RE.test(id)) return id;
  sendFailure(ctx, fail('sbp_member_id_invalid', 'member_id'));
  return null;
}

async function list(ctx: Ctx, s: Services) {
  const data = await listAllSbpMembers(s.db);
  sendJson(ctx, 200, { object: 'list', data, count: data.length, request_id: ctx.requestId });
}

async function getOne(ctx: Ctx, s: Services) {
  const id = memberIdParam(ctx);
  if (!id) return;
  const m = await getSbpMember(s.db, id);
  if (!m) return sendFailure(ctx, fail('sbp_member_not_found', 'member_id'));
  sendJson(ctx, 200, { ...m, request_id: ctx.requestId });
}

async function upsert(ctx: Ctx, s: Services, raw: unknown) {
  const v = validateUpsert(raw);
  if (!v.ok) return sendFailure(ctx, v.failure);
  const b = v.value;
  const problem = fieldProblem(b);
  if (problem) return sendFailure(ctx, problem);
  const { record, created } = await upsertSbpMember(s.db, {
    member_id: b.member_id, name: b.name, logo_url: b.logo_url ?? '', deeplink_ios: b.deeplink_ios ?? '',
    deeplink_android: b.deeplink_android ?? '', is_popular: b.is_popular ?? false, display_order: b.display_order ?? 100, active: b.active ?? true,
  });
  const invalidated = await invalidateSbpMembers(s);
  s.log.info({ requestId: ctx.requestId, memberId: record.member_id, created }, 'SBP member saved');
  sendJson(ctx, created ? 201 : 200, { ...record, cache_invalidated: invalidated, request_id: ctx.requestId });
}

async function patch(ctx: Ctx, s: Services, raw: unknown) {
  const id = memberIdParam(ctx);
  if (!id) return;
  if (Object.keys(raw as object).length === 0) return sendFailure(ctx, fail('parameter_missing', null, 'give at least one field to change'));
  const v = validatePatch(raw);
  if (!v.ok) return sendFailure(ctx, v.failure);
  const problem = fieldProblem(v.value);
  if (problem) return sendFailure(ctx, problem);
  const record = await patchSbpMember(s.db, id, v.value);
  if (!record) return sendFailure(ctx, fail('sbp_member_not_found', 'member_id'));
  const invalidated = await invalidateSbpMembers(s);
  s.log.info({ requestId: ctx.requestId, memberId: id }, 'SBP member changed');
  sendJson(ctx, 200, { ...record, cache_invalidated: invalidated, request_id: ctx.requestId });
}

async function remove(ctx: Ctx, s: Services) {
  const id = memberIdParam(ctx);
  if (!id) return;
  if (!(await deleteSbpMember(s.db, id))) return sendFailure(ctx, fail('sbp_member_not_found', 'member_id'));
  const invalidated = await invalidateSbpMembers(s);
  s.log.info({ requestId: ctx.requestId, memberId: id }, 'SBP member deleted');
  sendJson(ctx, 200, { member_id: id, deleted: true, cache_invalidated: invalidated, request_id: ctx.requestId });
}

export const internalSbpRoutes: Route[] = [
  { method: 'GET', path: '/internal/sbp/members', api: 'internal', auth: 'admin', handler: list },
  { method: 'POST', path: '/internal/sbp/members', api: 'internal', auth: 'admin', body: true, handler: upsert },
  { method: 'GET', path: '/internal/sbp/members/:member_id', api: 'internal', auth: 'admin', handler: getOne },
  { method: 'PATCH', path: '/internal/sbp/members/:member_id', api: 'internal', auth: 'admin', body: true, handler: patch },
  { method: 'DELETE', path: '/internal/sbp/members/:member_id', api: 'internal', auth: 'admin', handler: remove },
];

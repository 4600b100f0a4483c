// Gateway channel management, /v1/channels (secret keys, or restricted keys with channels:read /
// channels:write). `{id}` is the public id ch_…, the UUID or the slug. Channel state is merchant
// configuration, not an aggregate of the money path: each change is one UPDATE conditional on the
// row's version (reloaded and retried on conflict); promote-default and hard delete are one short
// transaction each (src/store/channels-repo.ts; docs/decisions.md "Gateway keys and channels").
import {
  channelView, CHANNEL_FIELD_CODES, CreateChannelRequest, PatchChannelRequest, RotateChannelSecretRequest,
} from '../../api/channels.js';
import { compile } from '../../api/validate.js';
import { checkTargetUrl, isPublicHttpsUrl } from '../../domain/address.js';
import { currencyRefusal } from '../../domain/money.js';
import {
  hardDeleteReasons, slugProblem, transitionChannel, type Branding, type Channel, type ChannelCommand, type ChannelStatus,
} from '../../domain/channel.js';
import { fail, isFailure, type ApiFailure } from '../../errors.js';
import {
  hardDeleteChannel, insertChannel, listChannels, promoteDefault, rotateChannelSecret, updateChannel, type ChannelChange,
} from '../../store/channels-repo.js';
import type { Principal } from '../auth.js';
import type { Ctx } from '../context.js';
import { accountWideRefusal, channelFor, gatewayRoute, principalOf, scopeOf } from '../gateway.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

const validateCreate = compile(CreateChannelRequest, CHANNEL_FIELD_CODES);
const validatePatch = compile(PatchChannelRequest, CHANNEL_FIELD_CODES);
const validateRotate = compile(RotateChannelSecretRequest, {});
const STATUSES: ChannelStatus[] = ['active', 'paused', 'deleted'];
const RETRIES = 5;

/** Checks what the schema cannot: slug shape, URLs, currencies of the merchant. */
function fieldProblem(s: Services, p: Principal, b: { slug?: string; branding?: Record<string, string | null | undefined>; webhook_url?: string | null; currencies?: string[] }): ApiFailure | null {
  if (b.slug !== undefined) {
    const why = slugProblem(b.slug);
    if (why) return fail('parameter_invalid', 'slug', why);
  }
  for (const f of ['logo_url', 'return_url'] as const) {
    const v = b.branding?.[f];
    if (typeof v === 'string' && !isPublicHttpsUrl(v)) return fail('parameter_invalid', `branding.${f}`, 'a public https URL');
  }
  if (typeof b.webhook_url === 'string') {
    const check = checkTargetUrl(b.webhook_url, { requireHttps: false, allowPrivate: s.config.webhooks.allowPrivate });
    if (!check.ok) return fail('webhook_url_invalid', 'webhook_url', `${check.rule}: ${check.detail}`);
  }
  const i = (b.currencies ?? []).findIndex((c) => !p.merchant.currencies.includes(c.toUpperCase()));
  if (i >= 0) return fail('currency_not_enabled', `currencies.${i}`, currencyRefusal(b.currencies![i].toUpperCase(), p.merchant.currencies));
  return null;
}

function mergeBranding(current: Branding, given: Record<string, string | null | undefined> | undefined): Branding | undefined {
  if (!given) return undefined;
  const out: Record<string, string> = { ...current };
  for (const [k, v] of Object.entries(given)) {
    if (v === null) delete out[k];
    else if (v !== undefined) out[k] = v;
  }
  return out;
}

async function list(ctx: Ctx, s: Services) {
  const p = principalOf(ctx);
  const status = new URLSearchParams(ctx.query).get('status') ?? undefined;
  if (status !== undefined && !STATUSES.includes(status as ChannelStatus)) return sendFailure(ctx, fail('parameter_invalid', 'status', 'active, paused or deleted'));
  const rows = await listChannels(s.db, scopeOf(p), { status: status as ChannelStatus | undefined, only: p.key.channelId });
  sendJson(ctx, 200, { object: 'list', data: rows.map((c) => channelView(c)), count: rows.length, request_id: ctx.requestId });
}

async function create(ctx: Ctx, s: Services, raw: unknown) {
  const p = principalOf(ctx);
  const refused = accountWideRefusal(p);
  if (refused) return sendFailure(ctx, refused);
  const v = validateCreate(raw);
  if (!v.ok) return sendFailure(ctx, v.failure);
  const b = v.value;
  const problem = fieldProblem(s, p, b);
  if (problem) return sendFailure(ctx, problem);
  const ch = await insertChannel(s.db, scopeOf(p), {
    slug: b.slug, name: b.name, branding: mergeBranding({}, b.branding) ?? {}, webhookUrl: b.webhook_url ?? null,
    currencies: (b.currencies ?? []).map((c) => c.toUpperCase()),
  });
  if (!ch) return sendFailure(ctx, fail('channel_slug_taken', 'slug'));
  sendJson(ctx, 200, channelView(ch, true));
}

async function get(ctx: Ctx, s: Services) {
  const ch = await channelFor(s, principalOf(ctx), ctx.params[0]);
  if (isFailure(ch)) return sendFailure(ctx, ch);
  sendJson(ctx, 200, channelView(ch));
}

/** Loads the channel, computes the change, writes it under the version check; retried on conflict. */
async function change(ctx: Ctx, s: Services, decide: (c: Channel) => ChannelChange | ApiFailure): Promise<void> {
  const p = principalOf(ctx);
  for (let i = 0; i < RETRIES; i++) {
    const ch = await channelFor(s, p, ctx.params[0]);
    if (isFailure(ch)) return sendFailure(ctx, ch);
    const next = decide(ch);
    if (isFailure(next)) return sendFailure(ctx, next);
    const out = await updateChannel(s.db, ch, next);
    if (out === 'slug_taken') return sendFailure(ctx, fail('channel_slug_taken', 'slug'));
    if (out !== 'conflict') return sendJson(ctx, 200, channelView(out));
  }
  sendFailure(ctx, { ...fail('service_unavailable', null, 'the channel kept changing'), retryAfterSeconds: 1 });
}

async function patch(ctx: Ctx, s: Services, raw: unknown) {
  const v = validatePatch(raw);
  if (!v.ok) return sendFailure(ctx, v.failure);
  const b = v.value;
  const problem = fieldProblem(s, principalOf(ctx), b);
  if (problem) return sendFailure(ctx, problem);
  await change(ctx, s, (c) => ({
    slug: b.slug, name: b.name, branding: mergeBranding(c.branding, b.branding), webhookUrl: b.webhook_url,
    currencies: b.currencies?.map((x) => x.toUpperCase()),
  }));
}

/** pause, resume, delete (soft), restore: the pure transition decides, the version check guards. */
const statusCommand = (cmd: ChannelCommand, accountWide: boolean) => async (ctx: Ctx, s: Services) => {
  const refused = accountWide ? accountWideRefusal(principalOf(ctx)) : null;
  if (refused) return sendFailure(ctx, refused);
  await change(ctx, s, (c) => {
    const next = transitionChannel(c, cmd, Date.now());
    if (typeof next === 'string') return fail(next, null, `the channel is ${c.isDefault ? 'the default' : c.status}`);
    return { status: next.status, deletedAt: next.deletedAt };
  });
};

async function promote(ctx: Ctx, s: Services) {
  const p = principalOf(ctx);
  const refused = accountWideRefusal(p);
  if (refused) return sendFailure(ctx, refused);
  const ch = await channelFor(s, p, ctx.params[0]);
  if (isFailure(ch)) return sendFailure(ctx, ch);
  const out = await promoteDefault(s.db, scopeOf(p), ch.id);
  if (out === 'not_found') return sendFailure(ctx, fail('channel_not_found', 'id'));
  if (out === 'not_active') return sendFailure(ctx, fail('channel_status_conflict', null, 'only an active channel can become the default'));
  sendJson(ctx, 200, channelView(out));
}

async function remove(ctx: Ctx, s: Services) {
  const hard = new URLSearchParams(ctx.query).get('hard');
  if (hard !== null && hard !== 'true' && hard !== 'false') return sendFailure(ctx, fail('parameter_invalid', 'hard', 'true or false'));
  if (hard !== 'true') return statusCommand('delete', true)(ctx, s);
  const p = principalOf(ctx);
  const refused = accountWideRefusal(p);
  if (refused) return sendFailure(ctx, refused);
  const ch = await channelFor(s, p, ctx.params[0]);
  if (isFailure(ch)) return sendFailure(ctx, ch);
  const out = await hardDeleteChannel(s.db, ch, (refs) => hardDeleteReasons(ch, refs).length === 0);
  if (out.deleted) return sendJson(ctx, 200, { id: ch.id, object: 'channel', deleted: true, hard: true, request_id: ctx.requestId });
  const reasons = out.refs ? hardDeleteReasons(ch, out.refs) : [{ reason: 'default_channel', count: 1 }];
  sendFailure(ctx, { ...fail('channel_in_use', null, reasons.map((r) => `${r.reason} (${r.count})`).join(', ')), extra: { reasons } });
}

async function rotate(ctx: Ctx, s: Services, raw: unknown) {
  const v = validateRotate(raw);
  if (!v.ok) return sendFailure(ctx, v.failure);
  const p = principalOf(ctx);
  for (let i = 0; i < RETRIES; i++) {
    const ch = await channelFor(s, p, ctx.params[0]);
    if (isFailure(ch)) return sendFailure(ctx, ch);
    const out = await rotateChannelSecret(s.db, ch, v.value.grace_seconds ?? 86400);
    if (out !== 'conflict') return sendJson(ctx, 200, channelView(out, true));
  }
  sendFailure(ctx, { ...fail('service_unavailable', null, 'the channel kept changing'), retryAfterSeconds: 1 });
}

const C = '/v1/channels';
export const gatewayChannelRoutes: Route[] = [
  gatewayRoute('GET', C, 'channels:read', list),
  gatewayRoute('POST', C, 'channels:write', create, { body: true }),
  gatewayRoute('GET', `${C}/:id`, 'channels:read', get),
  gatewayRoute('PATCH', `${C}/:id`, 'channels:write', patch, { body: true }),
  gatewayRoute('DELETE', `${C}/:id`, 'channels:write', remove),
  gatewayRoute('POST', `${C}/:id/pause`, 'channels:write', statusCommand('pause', false)),
  gatewayRoute('POST', `${C}/:id/resume`, 'channels:write', statusCommand('resume', false)),
  gatewayRoute('POST', `${C}/:id/restore`, 'channels:write', statusCommand('restore', true)),
  gatewayRoute('POST', `${C}/:id/promote-default`, 'channels:write', promote),
  gatewayRoute('POST', `${C}/:id/rotate-webhook-secret`, 'channels:write', rotate, { body: true }),
];

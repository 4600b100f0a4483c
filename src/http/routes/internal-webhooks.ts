// Operator endpoints for webhooks: settings (with secret rotation and a test ping), the event log,
// every delivery attempt, and resend.
import { PutWebhookSettings, SettingsScope } from '../../api/webhooks.js';
import { compile } from '../../api/validate.js';
import { testPingObject } from '../../api/webhook-envelopes.js';
import { checkTargetUrl } from '../../domain/address.js';
import { eventTypesOf } from '../../domain/webhook-events.js';
import { fail } from '../../errors.js';
import { getMerchant } from '../../store/merchants-repo.js';
import {
  deleteSettings, eventExists, findSettings, insertEventWithDelivery, listDeliveries, listEvents, listSettings, resendEvent, rotateSecret, upsertSettings,
  type WebhookSettings,
} from '../../store/webhooks-repo.js';
import type { Ctx } from '../context.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';
import { isoOrNull } from '../../domain/instant.js';

const validatePut = compile(PutWebhookSettings, { url: 'webhook_url_invalid' });
const validateScope = compile(SettingsScope, {});

export const settingsView = (w: WebhookSettings) => ({
  id: w.id, object: 'webhook_settings', api: w.api, url: w.url, events: w.events ?? [...eventTypesOf(w.api)].filter((t) => t !== 'test.ping'),
  secret: w.secret, channel_id: w.channelId, previous_secret_expires_at: w.previousExpiresAt && w.previousExpiresAt > Date.now() ? isoOrNull(w.previousExpiresAt) : null,
  created_at: isoOrNull(w.createdAt), updated_at: isoOrNull(w.updatedAt),
});

async function merchantOr404(ctx: Ctx, s: Services): Promise<boolean> {
  if (await getMerchant(s.db, ctx.params[0])) return true;
  sendFailure(ctx, fail('merchant_not_found', 'id'));
  return false;
}

async function putSettings(ctx: Ctx, s: Services, raw: unknown) {
  const v = validatePut(raw);
  if (!v.ok) return sendFailure(ctx, v.failure);
  if (!(await merchantOr404(ctx, s))) return;
  const b = v.value;
  // Saved URLs are checked as written; the address they resolve to is checked again at delivery.
  // On the embedded default a loopback URL is accepted: only test-mode events are sent to it.
  const w = s.config.webhooks;
  const check = checkTargetUrl(b.url, { requireHttps: false, allowPrivate: w.allowPrivate || (w.allowLoopbackTest === true ? 'loopback' : false) });
  if (!check.ok) {
    const hint = check.privateOk ? '; a server for local testing may allow local and private addresses with WEBHOOK_ALLOW_PRIVATE=1' : '';
    return sendFailure(ctx, fail('webhook_url_invalid', 'url', `${check.rule}: ${check.detail}${hint}`));
  }
  const known = eventTypesOf(b.api);
  const bad = (b.events ?? []).find((e) => !known.includes(e));
  if (bad) return sendFailure(ctx, fail('parameter_invalid', 'events', `unknown event type ${bad}`));
  if (b.api === 'merchant' && b.channel_id) return sendFailure(ctx, fail('parameter_invalid', 'channel_id', 'the merchant API has no channels'));
  const { settings, created } = await upsertSettings(s.db, { merchantId: ctx.params[0], api: b.api, channelId: b.channel_id ?? null, url: b.url, events: b.events ?? null });
  sendJson(ctx, created ? 201 : 200, settingsView(settings));
}

async function getSettings(ctx: Ctx, s: Services) {
  if (!(await merchantOr404(ctx, s))) return;
  sendJson(ctx, 200, { object: 'list', data: (await listSettings(s.db, ctx.params[0])).map(settingsView), request_id: ctx.requestId });
}

/** Removes one endpoint by its id (what `listen` does on exit to an endpoint it created). */
async function removeSettings(ctx: Ctx, s: Services) {
  if (!(await merchantOr404(ctx, s))) return;
  if (!(await deleteSettings(s.db, ctx.params[0], ctx.params[1]))) return sendFailure(ctx, fail('webhook_settings_not_found', 'id'));
  sendJson(ctx, 200, { id: ctx.params[1], object: 'webhook_settings', deleted: true, request_id: ctx.requestId });
}

async function scoped(ctx: Ctx, s: Services, raw: unknown) {
  const v = validateScope(raw);
  if (!v.ok) { sendFailure(ctx, v.failure); return null; }
  if (!(await merchantOr404(ctx, s))) return null;
  const found = await findSettings(s.db, ctx.params[0], v.value.api, v.value.channel_id ?? null);
  if (!found) { sendFailure(ctx, fail('webhook_settings_not_found', 'api')); return null; }
  return { settings: found, body: v.value };
}

async function rotate(ctx: Ctx, s: Services, raw: unknown) {
  const sc = await scoped(ctx, s, raw);
  if (!sc) return;
  sendJson(ctx, 200, settingsView(await rotateSecret(s.db, sc.settings.id, sc.body.grace_seconds ?? 86_400)));
}

async function testPing(ctx: Ctx, s: Services, raw: unknown) {
  const sc = await scoped(ctx, s, raw);
  if (!sc) return;
  const data = sc.settings.api === 'merchant' ? testPingObject(ctx.params[0]) : { merchant_id: ctx.params[0], message: testPingObject(ctx.params[0]).message };
  const { eventId, deliveryId } = await insertEventWithDelivery(s.db, {
    merchantId: ctx.params[0], livemode: false, api: sc.settings.api, type: 'test.ping', aggregateId: sc.settings.id, data, settingsId: sc.settings.id, dueInMs: 5000,
  });
  // The first attempt runs now, here, so the operator sees its result; retries follow the schedule.
  await s.webhooks.runOnce(deliveryId, true);
  const [delivery] = await listDeliveries(s.db, ctx.params[0], eventId);
  sendJson(ctx, 200, { event_id: eventId, delivery, request_id: ctx.requestId });
}

async function events(ctx: Ctx, s: Services) {
  if (!(await merchantOr404(ctx, s))) return;
  const q = new URLSearchParams(ctx.query);
  const limit = q.has('limit') ? Number(q.get('limit')) : 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return sendFailure(ctx, fail('limit_invalid', 'limit'));
  sendJson(ctx, 200, { object: 'list', data: await listEvents(s.db, ctx.params[0], limit, q.get('type') ?? undefined), request_id: ctx.requestId });
}

async function deliveries(ctx: Ctx, s: Services) {
  if (!(await eventExists(s.db, ctx.params[0], ctx.params[1]))) return sendFailure(ctx, fail('event_not_found', 'event_id'));
  sendJson(ctx, 200, { object: 'list', data: await listDeliveries(s.db, ctx.params[0], ctx.params[1]), request_id: ctx.requestId });
}

async function resend(ctx: Ctx, s: Services) {
  if (!(await eventExists(s.db, ctx.params[0], ctx.params[1]))) return sendFailure(ctx, fail('event_not_found', 'event_id'));
  const ids = await resendEvent(s.db, ctx.params[0], ctx.params[1]);
  if (ids.length === 0) return sendFailure(ctx, fail('webhook_settings_not_found', null, 'no endpoint wants this event'));
  for (const id of ids) void s.webhooks.runOnce(id).catch((err: Error) => s.log.warn({ err, deliveryId: id }, 'resent delivery: first attempt failed to run'));
  sendJson(ctx, 202, { object: 'list', data: ids.map((id) => ({ id, status: 'pending' })), request_id: ctx.requestId });
}

const base = '/internal/merchants/:id';
export const internalWebhookRoutes: Route[] = [
  { method: 'PUT', path: `${base}/webhook-settings`, api: 'internal', auth: 'admin', body: true, handler: putSettings },
  { method: 'GET', path: `${base}/webhook-settings`, api: 'internal', auth: 'admin', handler: getSettings },
  { method: 'DELETE', path: `${base}/webhook-settings/:sid`, api: 'internal', auth: 'admin', handler: removeSettings },
  { method: 'POST', path: `${base}/webhook-settings/rotate-secret`, api: 'internal', auth: 'admin', body: true, handler: rotate },
  { method: 'POST', path: `${base}/webhook-settings/test`, api: 'internal', auth: 'admin', body: true, handler: testPing },
  { method: 'GET', path: `${base}/events`, api: 'internal', auth: 'admin', handler: events },
  { method: 'GET', path: `${base}/events/:evt/deliveries`, api: 'internal', auth: 'admin', handler: deliveries },
  { method: 'POST', path: `${base}/events/:evt/resend`, api: 'internal', auth: 'admin', handler: resend },
];

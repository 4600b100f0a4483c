// Merchant API payment link endpoints: create (idempotent), retrieve, list, deactivate.
import { CreateLinkRequest, CREATE_LINK_FIELD_CODES, toLinkResource } from '../../api/links.js';
import { compile, dropNulls } from '../../api/validate.js';
import { applyLinkRules, type Link, type LinkInput } from '../../domain/link.js';
import { LINK_ID_RE, prefixedId } from '../../domain/ids.js';
import { fail } from '../../errors.js';
import { findLink, linkCursorOf, listLinks } from '../../store/links-repo.js';
import type { Principal } from '../auth.js';
import type { Ctx } from '../context.js';
import { createMailbox, idempotencyOf, runIdempotent, type StoredAnswer } from '../idempotent.js';
import { clockForCreate, nowFor } from '../test-clock-ref.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

const validateCreate = compile(CreateLinkRequest, CREATE_LINK_FIELD_CODES);

async function createLink(ctx: Ctx, s: Services, raw: unknown): Promise<void> {
  const who = ctx.auth as Principal;
  const body = dropNulls(raw);
  const checked = validateCreate(body);
  if (!checked.ok) return sendFailure(ctx, checked.failure);
  // On a test clock, expires_at must be after the clock's time (test-clock-ref.ts).
  const clock = await clockForCreate(s, who, checked.value.test_clock);
  if ('code' in clock) return sendFailure(ctx, clock);
  const rules = applyLinkRules(checked.value as LinkInput, who.merchant, clock.now);
  if (!rules.ok) return sendFailure(ctx, fail(rules.code, rules.param, rules.detail));

  const idem = idempotencyOf(ctx, { merchantId: who.merchant.id, livemode: who.livemode }, 'link', '/api/v2/links', body);
  if ('code' in idem) return sendFailure(ctx, idem);
  const idemKey = idem.key;
  const hash = idemKey ? idem.hash : null;
  const render = (l: Link): StoredAnswer => ({ status: 201, body: JSON.stringify(toLinkResource(l, s.config.publicBaseUrl, l.requestId, l.testClockId ? l.createdAt : Date.now())), requestId: l.requestId });
  await runIdempotent(ctx, s, idem, async () => {
    const id = prefixedId('lnk', 20);
    const reply = await s.dispatcher.send({
      kind: 'link.create', id, input: rules.value, mailbox: createMailbox(idem),
      ctx: { id, merchantId: who.merchant.id, livemode: who.livemode, requestId: ctx.requestId, idempotencyKey: idemKey, requestHash: hash, testClockId: clock.testClockId },
    });
    return reply.ok ? { answer: render(reply.link), replayed: reply.replayed } : { failure: reply.failure };
  });
}

/** The link named by the path, if it belongs to the caller's merchant and mode (else 404 sent). */
async function ownLink(ctx: Ctx, s: Services): Promise<Link | null> {
  const who = ctx.auth as Principal;
  const id = ctx.params[0];
  const l = LINK_ID_RE.test(id) ? await findLink(s.db, id) : null;
  if (!l || l.merchantId !== who.merchant.id || l.livemode !== who.livemode) { sendFailure(ctx, fail('link_not_found', 'id')); return null; }
  return l;
}

async function getLink(ctx: Ctx, s: Services): Promise<void> {
  const l = await ownLink(ctx, s);
  if (l) sendJson(ctx, 200, toLinkResource(l, s.config.publicBaseUrl, ctx.requestId, await nowFor(s, l.testClockId)));
}

async function deactivateLink(ctx: Ctx, s: Services): Promise<void> {
  const l = await ownLink(ctx, s);
  if (!l) return;
  const reply = await s.dispatcher.send({ kind: 'link.deactivate', id: l.id });
  if (!reply.ok) return sendFailure(ctx, reply.failure);
  sendJson(ctx, 200, toLinkResource(reply.link, s.config.publicBaseUrl, ctx.requestId, await nowFor(s, reply.link.testClockId)));
}

async function listLinksHandler(ctx: Ctx, s: Services): Promise<void> {
  const who = ctx.auth as Principal;
  const q = new URLSearchParams(ctx.query);
  for (const k of q.keys()) if (k !== 'limit' && k !== 'starting_after') return sendFailure(ctx, fail('parameter_unknown', k));
  let limit = 25;
  if (q.has('limit')) {
    const raw = q.get('limit')!;
    limit = /^\d{1,3}$/.test(raw) ? Number(raw) : NaN;
    if (!(limit >= 1 && limit <= 100)) return sendFailure(ctx, fail('limit_invalid', 'limit'));
  }
  let startingAfter: { createdAt: string; id: string } | undefined;
  if (q.has('starting_after')) {
    const c = q.get('starting_after')!;
    const found = LINK_ID_RE.test(c) ? await linkCursorOf(s.db, who.merchant.id, who.livemode, c) : null;
    if (!found) return sendFailure(ctx, fail('cursor_invalid', 'starting_after'));
    startingAfter = found;
  }
  const { links, hasMore } = await listLinks(s.db, { merchantId: who.merchant.id, livemode: who.livemode, limit, startingAfter });
  // A link on a test clock is judged at its clock's time (one read per clocked link; test mode only).
  const nows = await Promise.all(links.map((l) => nowFor(s, l.testClockId)));
  sendJson(ctx, 200, {
    object: 'list',
    data: links.map((l, i) => toLinkResource(l, s.config.publicBaseUrl, ctx.requestId, nows[i])),
    has_more: hasMore,
    next_cursor: hasMore ? links[links.length - 1].id : null,
    request_id: ctx.requestId,
  });
}

export const merchantLinkRoutes: Route[] = [
  { method: 'POST', path: '/api/v2/links', api: 'merchant', auth: 'merchant', body: true, handler: createLink },
  { method: 'GET', path: '/api/v2/links', api: 'merchant', auth: 'merchant', handler: listLinksHandler },
  { method: 'GET', path: '/api/v2/links/:id', api: 'merchant', auth: 'merchant', handler: getLink },
  { method: 'POST', path: '/api/v2/links/:id/deactivate', api: 'merchant', auth: 'merchant', body: true, handler: deactivateLink },
];

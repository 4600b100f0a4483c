// Gateway payments: GET /v2/payments (payments:read; limit 1-100 default 20, offset, status, from, to,
// payment_id, order_id, checkout_session_id, reference),
// GET /v2/payments/{id} (by payment_id = cs_ session id, order_id or connector_transaction_id) and
// POST /v2/payments/{id}/refund (refunds:write), which runs the merchant API's refund machinery: the
// payment's actor (actors/refund-actor.ts), one refunds table. docs/decisions.md "Gateway direct payments".
import {
  CaptureRequest, CREATE_PAYMENT_FIELD_CODES, CreateGatewayPaymentRequest, GATEWAY_REFUND_FIELD_CODES, GatewayRefundRequest, toGatewayPayment, toGatewayRefund,
  type GatewayRefundRequestBody,
} from '../../api/gateway-payments.js';
import { cardSummary, checkCard, type CheckedCard } from '../../domain/card.js';
import { sessionId, SESSION_ID_RE } from '../../domain/ids.js';
import { plan as planSession } from './gateway-checkout.js';
import { compile, dropNulls } from '../../api/validate.js';
import { parseDateTimeBound } from '../../domain/date-filter.js';
import { GATEWAY_PAYMENT_STATUSES, storedStatusesOf, type GatewayPaymentStatus } from '../../domain/gateway-payment.js';
import { fail, isFailure, type ApiFailure } from '../../errors.js';
import { findGatewayPayment, listGatewayPayments, type GatewayNameFilters, type GatewayPaymentRead, type GatewayScope } from '../../store/gateway-payments-repo.js';
import type { Ctx } from '../context.js';
import { gatewayRoute, principalOf } from '../gateway.js';
import { createMailbox, idempotencyOf, runIdempotent, runIdempotentIfFound, type StoredAnswer } from '../idempotent.js';
import { clockForCreate } from '../test-clock-ref.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';
import type { ReplyOf } from '../../../actors/protocol.js';

const validateRefund = compile(GatewayRefundRequest, GATEWAY_REFUND_FIELD_CODES);
const KEY_RE = /^[\x21-\x7e]{1,128}$/;
const NAME_FILTERS = ['payment_id', 'order_id', 'checkout_session_id', 'reference'] as const;
const LIST_PARAMS: readonly string[] = ['limit', 'offset', 'status', 'from', 'to', ...NAME_FILTERS];

function scopeOfCtx(ctx: Ctx): GatewayScope {
  const who = principalOf(ctx);
  return { merchantId: who.merchant.id, livemode: who.livemode, channelId: who.key.channelId };
}

const view = (r: GatewayPaymentRead) => toGatewayPayment(r.payment, r.checkout, r);

/** The key's payment by any of its names; a channel-scoped key sees only its channel's (others are not found). */
async function lookup(ctx: Ctx, s: Services): Promise<GatewayPaymentRead | ApiFailure> {
  const key = ctx.params[0];
  const scope = scopeOfCtx(ctx);
  if (!key || !KEY_RE.test(key)) return fail('payment_not_found', 'id');
  // A payment's own id wins over the other names (findGatewayPayment orders it first): looked up by
  // id first, grouped with the other reads by id; a miss or another scope's payment tries every name.
  const byId = await s.reads.gatewayPayment(key);
  const inScope = (r: GatewayPaymentRead | null): r is GatewayPaymentRead => r !== null && r.payment.merchantId === scope.merchantId && r.payment.livemode === scope.livemode;
  const r = inScope(byId) ? byId : await findGatewayPayment(s.db, scope, key);
  if (!r || (scope.channelId !== null && r.payment.channelId !== scope.channelId)) return fail('payment_not_found', 'id');
  return r;
}

async function list(ctx: Ctx, s: Services) {
  const q = new URLSearchParams(ctx.query);
  for (const k of q.keys()) if (!LIST_PARAMS.includes(k)) return sendFailure(ctx, fail('parameter_unknown', k, `the list takes ${LIST_PARAMS.join(', ')}`));
  // Spec rule 1: the list looks payments up by the same names as GET /v2/payments/{id}; each given
  // name narrows the page (they combine with each other and with status, from and to).
  const names: GatewayNameFilters = {};
  for (const name of NAME_FILTERS) {
    const values = q.getAll(name);
    if (values.length === 0) continue;
    if (values.length > 1 || !KEY_RE.test(values[0])) return sendFailure(ctx, fail('parameter_invalid', name, 'one value of 1 to 128 printable ASCII characters'));
    names[name] = values[0];
  }
  const int = (name: string, def: number, min: number, max: number): number | null => {
    const raw = q.get(name);
    if (raw === null) return def;
    const n = /^[0-9]{1,9}$/.test(raw) ? Number(raw) : NaN;
    return n >= min && n <= max ? n : null;
  };
  const limit = int('limit', 20, 1, 100);
  if (limit === null) return sendFailure(ctx, fail('limit_invalid', 'limit'));
  const offset = int('offset', 0, 0, 100_000_000);
  if (offset === null) return sendFailure(ctx, fail('parameter_invalid', 'offset', 'an integer >= 0'));
  const status = q.get('status');
  if (status !== null && !(GATEWAY_PAYMENT_STATUSES as readonly string[]).includes(status)) {
    return sendFailure(ctx, fail('status_invalid', 'status', GATEWAY_PAYMENT_STATUSES.join(', ')));
  }
  const bounds: { from?: number; to?: number } = {};
  for (const name of ['from', 'to'] as const) {
    if (!q.has(name)) continue;
    const b = parseDateTimeBound(q.get(name)!);
    if (!b) return sendFailure(ctx, fail('date_invalid', name));
    if (name === 'from') bounds.from = b.start; else bounds.to = b.end;
  }
  if (bounds.from !== undefined && bounds.to !== undefined && bounds.to <= bounds.from) return sendFailure(ctx, fail('date_invalid', 'to', 'to is before from'));
  const page = await listGatewayPayments(s.db, {
    ...scopeOfCtx(ctx), ...bounds, ...names, limit, offset, statuses: status ? storedStatusesOf(status as GatewayPaymentStatus) : null,
  });
  // The filter ran in SQL on the stored status and the checkout's wait (storedStatusesOf), so every row shown has the status asked for.
  const data = page.payments.map(view);
  sendJson(ctx, 200, { object: 'list', data, total: page.total, limit, offset, has_more: offset + page.payments.length < page.total });
}

async function get(ctx: Ctx, s: Services) {
  const r = await lookup(ctx, s);
  if ('code' in r) return sendFailure(ctx, r);
  sendJson(ctx, 200, view(r));
}

async function refund(ctx: Ctx, s: Services, raw: unknown) {
  const body = dropNulls(raw ?? {});
  // The spec carries the key in the body; the Idempotency-Key header is accepted too (the body's
  // wins). Known before the first read, so that no failure of this keyed request says "nothing happened".
  const bodyKey = (body as { idempotency_key?: unknown }).idempotency_key;
  if (typeof bodyKey === 'string') ctx.headers['idempotency-key'] = bodyKey;
  // A path that names a payment by its id goes straight to the payment's actor, which checks the
  // key's scope on its own read: no read here first. Anything else (another name, a request this
  // route refuses, an id the actor does not find in scope) takes the lookup, so that the answers
  // and their order (404 before 400) stay those of the lookup.
  if (byId(ctx)) {
    const v = validateRefund(body);
    if (v.ok && await refundOf(ctx, s, ctx.params[0], body, v.value, true)) return;
  }
  const found = await lookup(ctx, s);
  if ('code' in found) return sendFailure(ctx, found);
  const v = validateRefund(body);
  if (!v.ok) return sendFailure(ctx, v.failure);
  await refundOf(ctx, s, found.payment.id, body, v.value, false);
}

/**
 * The refund of payment `id` (no rule is checked here: the actor answers a used key first, then
 * checks the amount against what is left, its refusal naming the remaining amount). `direct`: the
 * payment was not looked up, and nothing is answered (false) when this route would refuse the
 * request or the actor finds no payment `id` in the key's scope.
 */
async function refundOf(ctx: Ctx, s: Services, id: string, body: unknown, b: GatewayRefundRequestBody, direct: boolean): Promise<boolean> {
  const who = principalOf(ctx);
  const idem = idempotencyOf(ctx, { merchantId: who.merchant.id, livemode: who.livemode }, 'refund', `/v2/payments/${id}/refund`, body);
  if ('code' in idem) return direct ? false : (sendFailure(ctx, idem), true);
  const render = (r: Parameters<typeof toGatewayRefund>[0], after: Parameters<typeof toGatewayRefund>[1]): StoredAnswer =>
    ({ status: 200, requestId: r.requestId, body: JSON.stringify(toGatewayRefund(r, after)) });
  return runIdempotentIfFound(ctx, s, idem, async () => {
    const reply = await s.dispatcher.send({
      kind: 'payment.refund', id,
      request: {
        merchantId: who.merchant.id, livemode: who.livemode, gateway: { channelId: who.key.channelId }, amount: b.amount ?? null, reason: b.reason ?? null,
        requestId: ctx.requestId, idempotencyKey: idem.key, requestHash: idem.key ? idem.hash : null,
      },
    });
    if (reply.ok) return { answer: render(reply.refund, reply.payment), replayed: reply.replayed };
    if (direct && reply.failure.code === 'payment_not_found') return null;
    return { failure: reply.failure.code === 'payment_not_payable' ? await notRefundable(ctx, s, id) : reply.failure };
  });
}

/** Whether the path names the payment by a checkout session's id (a gateway payment's own id). */
const byId = (ctx: Ctx): boolean => SESSION_ID_RE.test(ctx.params[0] ?? '');

/**
 * The spec's refund endpoint answers 400 and 404 only: a payment with nothing to refund is 400, its
 * message naming the payment's state as GET /v2/payments/{id} shows it now (read after the refusal,
 * so a refund that raced this one is counted).
 */
async function notRefundable(ctx: Ctx, s: Services, id: string): Promise<ApiFailure> {
  const now = await viewOf(s, ctx, id);
  const status = now?.status ?? 'unknown';
  const paid = status === 'succeeded' || status === 'partially_refunded' || status === 'refunded';
  const remaining = now && paid ? Math.max(0, now.amount - now.refunded_amount) : 0;
  const why = !paid ? `the payment is ${status}, not paid`
    : remaining === 0 ? `the payment is ${status}: nothing is left to refund`
      : `the payment was not refundable when checked and is ${status} now; retry`;
  return { ...fail('payment_not_refundable', 'id', why), extra: { payment_status: status, remaining } };
}

export const gatewayPaymentRoutes: Route[] = [
  gatewayRoute('GET', '/v2/payments', 'payments:read', list),
  gatewayRoute('GET', '/v2/payments/:id', 'payments:read', get),
  gatewayRoute('POST', '/v2/payments/:id/refund', 'refunds:write', refund, { body: true, bodyKey: 'idempotency_key' }),
];

// -- Direct payments: POST /v2/payments, capture and cancel.

const validateCreate = compile(CreateGatewayPaymentRequest, CREATE_PAYMENT_FIELD_CODES);
const validateCapture = compile(CaptureRequest, { amount: 'capture_amount_invalid' });
const CREATE_KEY_MAX = 128;

/** Current view of a payment after a command (its refund count and bank reference from the row). */
async function viewOf(s: Services, ctx: Ctx, id: string) {
  const r = await findGatewayPayment(s.db, scopeOfCtx(ctx), id);
  return r ? view(r) : null;
}

/** Pay refusals meaning another request already paid (or is paying) this payment: its state is the answer. */
const SETTLED_ELSEWHERE = new Set(['checkout_closed', 'payment_attempt_in_progress']);

/**
 * Pay refusals that no bank saw and that a retry of this request cannot change (the saved card is not
 * this customer's, the connector refused before any bank): the payment they leave pending would be an
 * orphan until its session lifetime, so it is cancelled at once (nothing was charged). A refusal that
 * may still resolve (503, outcome unknown, an interrupted attempt) leaves it pending for the retry.
 */
const REFUSED_FOR_GOOD = new Set(['saved_payment_method_not_found', 'connector_not_configured', 'test_card_in_live_mode']);

async function createDirect(ctx: Ctx, s: Services, raw: unknown) {
  const who = principalOf(ctx);
  const body = dropNulls(raw);
  const v = validateCreate(body);
  if (!v.ok) return sendFailure(ctx, v.failure);
  const b = v.value;
  const method = b.payment_method ?? 'card';
  // Card data first: a merchant outside PCI scope is refused before anything about the card is read.
  if (b.card !== undefined && !who.merchant.cardDataAllowed) return sendFailure(ctx, fail('card_data_not_allowed', 'card'));
  const details = method === 'card' ? b.card : method === 'token' ? b.token : b.wallet;
  if (details === undefined) return sendFailure(ctx, fail('payment_method_details_missing', method));
  let checked: CheckedCard | null = null;
  if (method === 'card') {
    const c = checkCard(b.card!, Date.now());
    // The param names the field; the number itself is never echoed.
    if (!c.ok) return sendFailure(ctx, fail(c.code, `card.${c.param}`));
    checked = c.card;
  }
  const key = ctx.headers['idempotency-key'];
  if (key !== undefined && key.length > CREATE_KEY_MAX) return sendFailure(ctx, fail('idempotency_key_invalid', 'Idempotency-Key', `at most ${CREATE_KEY_MAX} characters here`));
  const planned = await planSession(s, who, {
    amount: b.amount, currency: b.currency, description: b.description, order_id: b.order_id, customer: b.customer,
    metadata: b.metadata, webhook_url: b.webhook_url, channel_id: b.channel_id,
  });
  if (isFailure(planned)) return sendFailure(ctx, planned as ApiFailure);
  const clock = await clockForCreate(s, who, b.test_clock);
  if ('code' in clock) return sendFailure(ctx, clock);
  const input = { ...planned.input, method: 'card' as const, session: { ...planned.input.session, captureMethod: b.capture_method ?? 'automatic' } };
  // The hash covers the request without the card number (never kept, not even hashed).
  const hashed = { ...b, card: b.card ? { last4: b.card.number.slice(-4), exp_month: b.card.exp_month, exp_year: b.card.exp_year } : undefined };
  const idem = idempotencyOf(ctx, { merchantId: who.merchant.id, livemode: who.livemode }, 'session', '/v2/payments', hashed);
  if ('code' in idem) return sendFailure(ctx, idem);
  const render = (pv: ReturnType<typeof view>, requestId: string): StoredAnswer => ({ status: 200, requestId, body: JSON.stringify(pv) });
  // Postgres arbitrates the key (the actor's insert); a replay renders the payment as it is now.
  await runIdempotent(ctx, s, idem, async () => {
    const id = sessionId();
    const createCtx = {
      id, merchantId: who.merchant.id, livemode: who.livemode, fees: { feeBps: who.merchant.feeBps, feeFixed: who.merchant.feeFixed },
      windowSeconds: s.config.sessionWindowSeconds, requestId: ctx.requestId, idempotencyKey: idem.key, requestHash: idem.key ? idem.hash : null,
      testClockId: clock.testClockId,
    };
    const summary = checked ? cardSummary(checked, s.config.cardFingerprintKey, null) : null;
    // A card: one command creates the payment with its first attempt (one statement), calls the bank
    // and records the outcome. A token or a wallet: the create, then the checkout's submit.
    const created = checked
      ? await s.dispatcher.send({ kind: 'payment.create_direct', id, input, mailbox: createMailbox(idem), ctx: createCtx, card: checked, summary: summary! })
      : await s.dispatcher.send({ kind: 'payment.create', id, input, mailbox: createMailbox(idem), ctx: createCtx });
    if (!created.ok) return { failure: created.failure };
    // The key now holds a payment (made now, or by its first request): a later failure is an unknown outcome.
    ctx.committed = true;
    // A replay pays too while the payment is still pending with no action awaited: the first request
    // may have died before the bank call (the card is never kept, so only a retry can pay it). Its
    // attempt is then open until recovery asks the bank and releases it; until then a pay finds the
    // attempt in flight and the answer shows the payment as it is. The checkout actor makes
    // concurrent pays of one payment one attempt (docs/decisions.md, "A retry after a death...").
    const unpaid = created.replayed ? (await viewOf(s, ctx, created.payment.id))?.status === 'pending' : true;
    let paidNow: ReturnType<typeof view> | null = null;
    if (unpaid) {
      const fresh: ReplyOf<'checkout.pay'> | null = 'pay' in created ? (created as { pay: ReplyOf<'checkout.pay'> | null }).pay : null;
      const paid = fresh ?? (checked
        ? await s.dispatcher.send({ kind: 'checkout.pay', id: created.payment.id, card: checked, summary: summary! })
        : await s.dispatcher.send({
          kind: 'checkout.submit', id: created.payment.id,
          action: method === 'token' ? { method: 'recurrent', savedId: b.token! } : { method: b.wallet!.type, token: b.wallet!.token },
        }));
      if (!paid.ok && REFUSED_FOR_GOOD.has(paid.failure.code)) {
        const ended = await s.dispatcher.send({ kind: 'checkout.cancel', id: created.payment.id });
        if (!ended.ok) s.log.warn({ paymentId: created.payment.id, code: ended.failure.code }, 'a refused direct payment stays pending until its session lifetime');
        return { failure: paid.failure };
      }
      if (!paid.ok && !SETTLED_ELSEWHERE.has(paid.failure.code)) return { failure: paid.failure };
      if (paid.ok) {
        ctx.payment = { paymentId: created.payment.id, paymentStatus: paid.payment.status, paymentMethod: method };
        // From the pay's reply, with no read after its commit: a payment paid just now has no refunds yet.
        paidNow = toGatewayPayment(paid.payment, paid.checkout, { refundCount: 0, connectorTransactionId: paid.bankReference ?? null });
      }
    }
    // Paid by this request: its reply is the answer. Otherwise (a replay, or paid by a request racing
    // this one) the payment as it stands; should that read fail, the answer is outcome_unknown (ctx.committed).
    const pv = paidNow ?? await viewOf(s, ctx, created.payment.id);
    if (!pv) return { failure: fail('payment_not_found', 'id') };
    // A retry that paid the payment gives its first complete answer (cached from now on); an answer
    // showing it still unpaid (another request's attempt in flight) is never cached.
    return { answer: render(pv, paidNow ? ctx.requestId : created.payment.requestId), replayed: created.replayed && !paidNow, uncached: pv.status === 'pending' };
  });
}

/**
 * Capture and cancel: the payment's actor calls the bank through the attempt protocol
 * (actors/capture-actor.ts); across processes the version check picks one winner. Both take an
 * Idempotency-Key (as Stripe's do): the key's attempt answers a retry before any rule, so a retry of
 * a capture that committed is its replay, never "not capturable". The answer is built from the
 * actor's reply, with no read after the commit: the checkout, the refund count and the bank
 * reference were read with the payment before the attempt (a capture or cancel changes none of them).
 * As for refunds, a path naming the payment's id goes to the actor without a read here, the actor
 * checking the scope; anything else takes the lookup first.
 */
function stateChange(kind: 'capture' | 'cancel') {
  return async (ctx: Ctx, s: Services, raw: unknown) => {
    const body = dropNulls(raw ?? {});
    let amount: number | undefined;
    const valid = (): ApiFailure | null => {
      if (kind !== 'capture') return null;
      const v = validateCapture(body);
      if (!v.ok) return v.failure;
      amount = v.value.amount;
      return null;
    };
    if (byId(ctx) && valid() === null && await holdChange(ctx, s, kind, ctx.params[0], body, amount, true)) return;
    const found = await lookup(ctx, s);
    if ('code' in found) return sendFailure(ctx, found);
    const invalid = valid();
    if (invalid) return sendFailure(ctx, invalid);
    await holdChange(ctx, s, kind, found.payment.id, body, amount, false);
  };
}

/** The capture or cancel of payment `id`; `direct` as refundOf's. */
async function holdChange(ctx: Ctx, s: Services, kind: 'capture' | 'cancel', id: string, body: unknown, amount: number | undefined, direct: boolean): Promise<boolean> {
  const who = principalOf(ctx);
  const idem = idempotencyOf(ctx, { merchantId: who.merchant.id, livemode: who.livemode }, kind, `/v2/payments/${id}/${kind}`, body);
  if ('code' in idem) return direct ? false : (sendFailure(ctx, idem), true);
  const key = idem.key === null ? undefined : { scope: idem.scope, hash: idem.hash, requestId: ctx.requestId };
  const scope = { merchantId: who.merchant.id, livemode: who.livemode, gateway: { channelId: who.key.channelId } };
  return runIdempotentIfFound(ctx, s, idem, async () => {
    const reply = await s.dispatcher.send(kind === 'capture'
      ? { kind: 'payment.capture', id, amount: amount ?? null, key, scope } : { kind: 'payment.void', id, expired: false, key, scope });
    if (!reply.ok) return direct && reply.failure.code === 'payment_not_found' ? null : { failure: reply.failure };
    // A gateway-scoped command's reply carries its view (HoldResult).
    const answer = JSON.stringify(toGatewayPayment(reply.payment, reply.view!.checkout, reply.view!));
    return { answer: { status: 200, requestId: reply.requestId ?? ctx.requestId, body: answer }, replayed: reply.replayed };
  });
}

gatewayPaymentRoutes.unshift(gatewayRoute('POST', '/v2/payments', 'payments:write', createDirect, { body: true }));
gatewayPaymentRoutes.push(
  gatewayRoute('POST', '/v2/payments/:id/capture', 'payments:write', stateChange('capture'), { body: true }),
  gatewayRoute('POST', '/v2/payments/:id/cancel', 'payments:write', stateChange('cancel'), { body: true }),
);

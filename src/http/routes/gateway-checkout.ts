// Gateway checkout sessions: POST /v2/payments/checkout (payments:write), GET
// /v2/payments/checkout/{id} (payments:read), and the widget's POST /widget/v1/session and GET
// /widget/v1/methods (publishable keys). A session is a payment row with id cs_… and source
// `gateway`, created by the actor of its id (payment.create) and paid on the same hosted checkout
// and public endpoints as a merchant API payment (docs/decisions.md "Gateway checkout sessions").
import {
  CHECKOUT_FIELD_CODES, checkoutUrlOf, CreateCheckoutRequest, CreateWidgetSessionRequest, toCheckoutSession,
} from '../../api/checkout-sessions.js';
import { effectiveMethodView } from '../../api/checkout-view.js';
import { compile, dropNulls } from '../../api/validate.js';
import { checkTargetUrl } from '../../domain/address.js';
import { OPEN } from '../../domain/checkout.js';
import { sessionUrls, type GatewaySession } from '../../domain/checkout-session.js';
import { SESSION_ID_RE, sessionId } from '../../domain/ids.js';
import type { MethodCode } from '../../domain/methods.js';
import type { Payment } from '../../domain/payment.js';
import { applyPaymentRules } from '../../domain/payment-rules.js';
import { fail, isFailure, type ApiFailure } from '../../errors.js';
import type { Principal } from '../auth.js';
import { effectiveMethods } from '../catalog.js';
import type { Ctx } from '../context.js';
import { channelScopeRefusal, gatewayRoute, principalOf, resolveChannelForSession } from '../gateway.js';
import { createMailbox, idempotencyOf, runIdempotent, type StoredAnswer } from '../idempotent.js';
import { clockForCreate } from '../test-clock-ref.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import { sbpMembersAnswer } from '../sbp-list.js';
import type { Services } from '../services.js';
import { isoInstant } from '../../domain/instant.js';

const validateCheckout = compile(CreateCheckoutRequest, CHECKOUT_FIELD_CODES);
const validateWidget = compile(CreateWidgetSessionRequest, CHECKOUT_FIELD_CODES);
/** The spec's limit for the checkout's Idempotency-Key (the merchant API allows 255). */
const CHECKOUT_KEY_MAX = 128;
const CHECKOUT_PATH = '/v2/payments/checkout';

type Body = CreateCheckoutRequest;

/** Everything a schema cannot check (also for POST /v2/payments), in the order a client fixes them; the payment to create, or the refusal. */
export async function plan(s: Services, who: Principal, b: Body) {
  if (b.test_mode !== undefined && b.test_mode === who.livemode) return fail('test_mode_invalid', 'test_mode');
  const rules = applyPaymentRules({
    amount: b.amount, currency: b.currency, order_id: b.order_id, description: b.description,
    customer: b.customer, metadata: b.metadata, locale: b.language,
  }, who.merchant, 'gateway');
  if (!rules.ok) return fail(rules.code, rules.param, rules.detail);
  const urls = sessionUrls(b, who.livemode);
  if (!urls.ok) {
    return fail('return_url_invalid', urls.param, who.livemode
      ? 'live mode takes public https URLs only; a test key also accepts http and localhost'
      : 'a test key accepts http or https on a public host or on localhost (127.0.0.1, ::1); private addresses are refused');
  }
  if (b.webhook_url !== undefined) {
    const check = checkTargetUrl(b.webhook_url, { requireHttps: false, allowPrivate: s.config.webhooks.allowPrivate });
    if (!check.ok) return fail('webhook_url_invalid', 'webhook_url', `${check.rule}: ${check.detail}`);
  }
  const channel = await resolveChannelForSession(s, who, b.channel_id);
  if (isFailure(channel)) return channel;
  if (channel.currencies.length > 0 && !channel.currencies.includes(rules.value.currency)) {
    return fail('currency_not_enabled', 'currency', `channel ${channel.slug} takes ${channel.currencies.join(', ')}`);
  }
  const eff = await effectiveMethods(s, { merchantId: who.merchant.id, livemode: who.livemode, amount: rules.value.amount, currency: rules.value.currency, method: null, session: null });
  // A degraded catalog (lookup failed) cannot judge the whitelist: the page applies it when it renders.
  const offered = (m: MethodCode) => eff.fallback || eff.methods.some((x) => x.method === m);
  const whitelist = b.settings?.payment_methods ?? null;
  const bad = whitelist?.findIndex((m) => !offered(m)) ?? -1;
  if (bad >= 0) return fail('settings_invalid', `settings.payment_methods.${bad}`, `${whitelist![bad]} is not available for this session`);
  if (b.initial_method && (!offered(b.initial_method) || (whitelist && !whitelist.includes(b.initial_method)))) {
    return fail('method_not_available', 'initial_method', `${b.initial_method} is not available for this session`);
  }
  const session: GatewaySession = {
    webhookUrl: b.webhook_url ?? null, successUrl: urls.successUrl ?? channel.branding.return_url ?? null, cancelUrl: urls.cancelUrl, paymentMethods: whitelist,
    buttonText: b.settings?.button_text ?? null, autoReturn: b.settings?.auto_return ?? null, initialMethod: b.initial_method ?? null,
  };
  return { input: { ...rules.value, channelId: channel.id, session } };
}

/** Creates a session through the actor of its id; `render` turns the committed session into the answer. */
async function createSession(ctx: Ctx, s: Services, who: Principal, b: Body, body: unknown, render: (p: Payment) => StoredAnswer): Promise<void> {
  const key = ctx.headers['idempotency-key'];
  if (key !== undefined && key.length > CHECKOUT_KEY_MAX) return sendFailure(ctx, fail('idempotency_key_invalid', 'Idempotency-Key', `at most ${CHECKOUT_KEY_MAX} characters here`));
  const planned = await plan(s, who, b);
  if (isFailure(planned)) return sendFailure(ctx, planned as ApiFailure);
  const clock = await clockForCreate(s, who, (b as { test_clock?: string }).test_clock);
  if ('code' in clock) return sendFailure(ctx, clock);
  const idem = idempotencyOf(ctx, { merchantId: who.merchant.id, livemode: who.livemode }, 'session', CHECKOUT_PATH, body);
  if ('code' in idem) return sendFailure(ctx, idem);
  const idemKey = idem.key;
  // Postgres arbitrates the key (the actor's insert); the key is shared with merchant API payments
  // (one unique index), and such a row never matches this request's hash (409).
  await runIdempotent(ctx, s, idem, async () => {
    const id = sessionId();
    const reply = await s.dispatcher.send({
      kind: 'payment.create', id, input: planned.input, mailbox: createMailbox(idem),
      ctx: {
        id, merchantId: who.merchant.id, livemode: who.livemode,
        fees: { feeBps: who.merchant.feeBps, feeFixed: who.merchant.feeFixed },
        windowSeconds: s.config.sessionWindowSeconds, requestId: ctx.requestId,
        idempotencyKey: idemKey, requestHash: idemKey ? idem.hash : null, testClockId: clock.testClockId,
      },
    });
    return reply.ok ? { answer: render(reply.payment), replayed: reply.replayed } : { failure: reply.failure };
  });
}

async function createCheckout(ctx: Ctx, s: Services, raw: unknown): Promise<void> {
  const who = principalOf(ctx);
  const body = dropNulls(raw);
  const v = validateCheckout(body);
  if (!v.ok) return sendFailure(ctx, v.failure);
  await createSession(ctx, s, who, v.value, body, (p) => ({
    status: 200, requestId: p.requestId, body: JSON.stringify(toCheckoutSession(p, OPEN, s.config.publicBaseUrl, p.requestId)),
  }));
}

async function getCheckout(ctx: Ctx, s: Services): Promise<void> {
  const who = principalOf(ctx);
  const id = ctx.params[0];
  const found = SESSION_ID_RE.test(id) ? await s.reads.checkout(id) : null;
  const p = found?.payment;
  if (!found || !p || !p.session || p.merchantId !== who.merchant.id || p.livemode !== who.livemode) {
    return sendFailure(ctx, fail('checkout_session_not_found', 'id'));
  }
  const scope = p.channelId ? channelScopeRefusal(who, { id: p.channelId }) : null;
  if (scope) return sendFailure(ctx, scope);
  sendJson(ctx, 200, toCheckoutSession(p, found.checkout, s.config.publicBaseUrl, ctx.requestId));
}

async function widgetSession(ctx: Ctx, s: Services, raw: unknown): Promise<void> {
  const who = principalOf(ctx);
  const body = dropNulls(raw);
  const v = validateWidget(body);
  if (!v.ok) return sendFailure(ctx, v.failure);
  await createSession(ctx, s, who, v.value, body, (p) => ({
    status: 200, requestId: p.requestId,
    body: JSON.stringify({ session_id: p.id, checkout_url: checkoutUrlOf(p, s.config.publicBaseUrl), expires_at: isoInstant(p.expiresAt), livemode: p.livemode, request_id: p.requestId }),
  }));
}

async function widgetMethods(ctx: Ctx, s: Services): Promise<void> {
  const who = principalOf(ctx);
  const eff = await effectiveMethods(s, { merchantId: who.merchant.id, livemode: who.livemode, amount: null, currency: null, method: null, session: null });
  sendJson(ctx, 200, { methods: eff.methods.map(effectiveMethodView), fallback: eff.fallback, request_id: ctx.requestId });
}

/** GET /widget/v1/sbp-members: the SBP bank list (gw-sbp's sbpMembersAnswer) with its Cache-Control. */
async function widgetSbpMembers(ctx: Ctx, s: Services): Promise<void> {
  const a = await sbpMembersAnswer(s);
  sendJson(ctx, 200, { ...a.body, request_id: ctx.requestId }, [['Cache-Control', a.cacheControl]]);
}

export const gatewayCheckoutRoutes: Route[] = [
  gatewayRoute('POST', CHECKOUT_PATH, 'payments:write', createCheckout, { body: true }),
  gatewayRoute('GET', `${CHECKOUT_PATH}/:id`, 'payments:read', getCheckout),
  gatewayRoute('POST', '/widget/v1/session', 'payments:write', widgetSession, { body: true, widget: true }),
  gatewayRoute('GET', '/widget/v1/methods', 'payments:read', widgetMethods, { widget: true }),
  gatewayRoute('GET', '/widget/v1/sbp-members', 'payments:read', widgetSbpMembers, { widget: true }),
];

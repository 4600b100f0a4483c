// The webhook dispatch actors of one thread: claim due deliveries (safe across threads and
// processes), sign and POST each, record every attempt, and schedule the next one. Endpoints are
// bounded separately, so one slow or dead endpoint never holds up the others; an endpoint that keeps
// up with a backlog gets a wider bound (src/domain/webhook-endpoint-bound.ts).
import type pg from 'pg';
import type { Logger } from '../src/log.js';
import { checkTargetUrl } from '../src/domain/address.js';
import { gatewaySignatureHeader, merchantSignatureHeader } from '../src/domain/webhook-signature.js';
import { afterAttempt, classifyStatus, type Outcome } from '../src/domain/webhook-schedule.js';
import { nextBound, type EndpointBoundConfig } from '../src/domain/webhook-endpoint-bound.js';
import { gatewayEventBody, gatewaySessionData, merchantEventBody, merchantPaymentObject } from '../src/api/webhook-envelopes.js';
import { resolveGatewayTarget } from '../src/domain/webhook-target.js';
import type { CheckoutState } from '../src/domain/checkout.js';
import { rowToPayment, type PaymentRow } from '../src/store/payment-row.js';
import { rowToRefund, type RefundRow } from '../src/store/refund-row.js';
import { toMerchantRefund } from '../src/api/refund-view.js';
import { activeSecrets, claimDeliveries, gatewayTargetContext, recordAttempts, type AttemptRecord, type ClaimedDelivery } from '../src/store/webhooks-repo.js';
import { lockTimedOut, rolledBack } from '../src/store/db.js';
import { GroupWriter } from './group-writer.js';
import { postWebhook, systemResolver, type Resolver } from './webhook-http.js';
import type { WakeupSource, WebhookMetrics } from '../src/metrics/webhooks.js';

export const MAX_BODY_BYTES = 256 * 1024;

export interface DispatcherConfig {
  db: pg.Pool;
  publicBaseUrl: string;
  allowPrivate: boolean;
  /** Test-mode events may go to loopback (the embedded default: the developer's own machine). */
  allowLoopbackTest?: boolean;
  timeoutMs: number;
  leaseMs: number;
  /** Safety-net poll: LISTEN/NOTIFY and this thread's own commits wake the dispatcher sooner. */
  pollMs: number;
  maxInflight: number;
  /** Requests open at once per endpoint to start with, and the floor of the adaptive bound. */
  perEndpoint: number;
  /** The most an endpoint that keeps up is widened to (absent: `perEndpoint`, a fixed bound). */
  perEndpointMax?: number;
  /** A 2xx within this many milliseconds is fast, and may widen its endpoint's bound (absent: 1000). */
  endpointFastMs?: number;
  /**
   * The process clock: signing timestamps, secret rotation windows and the Retry-After dates of
   * receivers. Due times and leases are Postgres's now(), never this clock.
   */
  now?: () => number;
  random?: () => number;
  resolve?: Resolver;
  log?: Logger;
  metrics?: WebhookMetrics;
}

export interface Rendered { body: string; headers: Record<string, string> }

/** The endpoint a delivery counts against: its settings row, or its target URL when it has none. */
const endpointKey = (d: ClaimedDelivery): string => d.settings?.id ?? `url:${d.targetUrl ?? d.id}`;

/** Body and headers of one attempt: the event id is fixed, the timestamp and signature are fresh. */
export function render(d: ClaimedDelivery, secrets: string[], now: number, publicBaseUrl: string, channelCode: string | null = null): Rendered {
  const ev = { id: d.event.id, type: d.event.type, livemode: d.event.livemode, createdAt: d.event.createdAt };
  const t = Math.floor(now / 1000);
  const common = { 'X-Svc-Event': ev.type, 'X-Svc-Event-Id': ev.id, 'X-Svc-Attempt': String(d.attempt) };
  if (d.api === 'merchant') {
    const object = ev.type === 'test.ping' ? d.event.data : merchantPaymentObject(rowToPayment(d.event.data as unknown as PaymentRow), publicBaseUrl);
    // A refund event's data is the payment row with the refund row under `refund` (refunds-repo.ts).
    const refund = d.event.data.refund as RefundRow | undefined;
    const body = merchantEventBody(ev, object, refund ? { refund: toMerchantRefund(rowToRefund(refund)) } : {});
    return { body, headers: { ...common, 'X-Svc-Signature': merchantSignatureHeader(secrets, t, body) } };
  }
  // A checkout session's event holds its payment row; the refund's payment.refunded holds its summary already.
  const row = d.event.data as unknown as PaymentRow & { checkout?: Partial<CheckoutState> | null; refund_id?: string; refund_amount?: number };
  // payment.refunded's row also names the refund it is about (refunds-repo.ts): shown as refund_id and refund_amount.
  const refund = typeof row.refund_id === 'string' ? { refund_id: row.refund_id, refund_amount: Number(row.refund_amount) } : {};
  const data = row.session && row.merchant_id ? { ...gatewaySessionData(rowToPayment(row), row.checkout ?? null, channelCode, ev.type), ...refund } : d.event.data;
  const body = gatewayEventBody(ev, data);
  return { body, headers: { ...common, 'X-Svc-Delivery': d.id, 'X-Svc-Timestamp': String(t), 'X-Svc-Signature': gatewaySignatureHeader(secrets, t, body) } };
}

/** What the bound sees of a request's end: a 2xx or not, how long, and whether it reached the endpoint at all. */
interface RequestOutcome { ok: boolean; durationMs: number; sent: boolean }

export class WebhookDispatcher {
  private inflight = 0;
  private readonly perEndpoint = new Map<string, number>();
  /** Endpoints whose bound is above `perEndpoint` (widened): that bound, and the request count when it was last halved. */
  private readonly widened = new Map<string, { bound: number; narrowedAt: number }>();
  /** Requests begun by this dispatcher: orders a request's start against its endpoint's latest halving. */
  private begun = 0;
  private readonly bound: EndpointBoundConfig;
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<number> | null = null;
  private again = false;
  private started = false;
  private stopped = false;
  /**
   * Attempts that end together are recorded in one statement (group commit, as payments' writes):
   * at a thousand deliveries a second, one commit per attempt was most of the dispatcher's database
   * cost. A record whose statement failed is retried after its lease, as before.
   */
  private readonly records: GroupWriter<AttemptRecord, boolean>;

  constructor(private readonly c: DispatcherConfig) {
    this.bound = { base: c.perEndpoint, max: Math.max(c.perEndpoint, Math.min(c.perEndpointMax ?? c.perEndpoint, c.maxInflight)), fastMs: c.endpointFastMs ?? 1000 };
    this.records = new GroupWriter((rs) => recordAttempts(c.db, rs), { groupFirst: true, maxBatch: 100, ambiguous: (err) => !rolledBack(err), lockWait: { timedOut: lockTimedOut } });
  }

  private now(): number { return (this.c.now ?? Date.now)(); }

  start(): void {
    this.started = true;
    this.timer = setInterval(() => this.kick('poll'), this.c.pollMs);
    this.timer.unref();
    this.kick('poll');
  }

  /**
   * Looks for due work now (called after a commit that queued deliveries, and by the timer). Only a
   * started dispatcher looks on its own: one driven by hand (the main thread's, for the operator's
   * test ping and resend, even with WEBHOOK_DISPATCH=0; tests) attempts only what it is asked to.
   * `source` is counted (webhook_wakeups_total); a call during a claim coalesces into one more.
   */
  kick(source: WakeupSource): void {
    if (!this.started || this.stopped) return;
    this.c.metrics?.wakeups.inc({ source });
    this.look();
  }

  private look(): void {
    if (this.ticking) { this.again = true; return; }
    this.ticking = this.tick().catch((err: Error) => { this.c.log?.warn({ err }, 'webhook claim failed'); return 0; }).finally(() => {
      this.ticking = null;
      if (this.again && !this.stopped) { this.again = false; this.look(); }
    });
  }

  /** Claims what this thread has room for and starts the attempts; resolves with how many started. */
  async tick(only?: string, force = false): Promise<number> {
    const room = this.c.maxInflight - this.inflight;
    if (room <= 0) return 0;
    // Each endpoint's room: its bound less what this thread has in flight there (an endpoint with
    // neither gets the starting bound in the statement).
    const rooms = new Map<string, number>();
    for (const key of new Set([...this.perEndpoint.keys(), ...this.widened.keys()])) rooms.set(key, this.boundOf(key) - (this.perEndpoint.get(key) ?? 0));
    const claimed = await claimDeliveries(this.c.db, {
      limit: Math.min(room, 100), leaseMs: this.c.leaseMs, rooms, perEndpoint: this.c.perEndpoint, only, force,
    });
    this.c.metrics?.claims.inc({ result: claimed.length > 0 ? 'took' : 'empty' });
    this.c.metrics?.claimed.inc(claimed.length);
    // An endpoint this claim got all the room it asked for has at least as much work waiting as
    // free slots: each of these requests began with it saturated, and each fast answer widens its
    // bound by one, so a round of them doubles it (TCP's slow start). Counting only the request
    // that took the last slot gave one slot per claim instead. A delivery with no settings row (a
    // gateway target resolved per attempt) is not bounded in the claim: the slots decide for it.
    const got = new Map<string, number>();
    for (const d of claimed) { const key = endpointKey(d); got.set(key, (got.get(key) ?? 0) + 1); }
    for (const d of claimed) {
      const key = endpointKey(d);
      this.inflight++;
      const open = (this.perEndpoint.get(key) ?? 0) + 1;
      this.perEndpoint.set(key, open);
      const startedFull = d.settings ? got.get(key)! >= (rooms.get(key) ?? this.c.perEndpoint) : open >= this.boundOf(key);
      const seq = ++this.begun;
      // The endpoint's slot is freed once its request has ended, before the attempt is recorded:
      // the bound is on requests at the endpoint, and the delivery stays leased until recorded.
      // The request's end moves the endpoint's bound first, so the claim it triggers sees it.
      let held = true;
      const release = (end?: RequestOutcome): void => {
        if (!held) return;
        held = false;
        if (end?.sent) this.adapt(key, seq, { ok: end.ok, durationMs: end.durationMs, startedFull });
        const n = (this.perEndpoint.get(key) ?? 1) - 1;
        if (n === 0) this.perEndpoint.delete(key); else this.perEndpoint.set(key, n);
        // A slot is free again: look for more at once rather than at the next poll (kicks coalesce,
        // so a busy stream costs one claim per round, not one per delivery).
        this.kick('slot');
      };
      const p = this.attempt(d, release).catch((err: Error) => {
        // Recording failed (database unreachable): the lease runs out and the delivery is retried.
        this.c.log?.warn({ err, deliveryId: d.id, attempt: d.attempt }, 'webhook attempt could not be recorded; retried after its lease');
      }).finally(() => {
        this.inflight--;
        this.running.delete(p);
        if (held) release(); else this.kick('slot');
      });
      this.running.add(p);
    }
    return claimed.length;
  }

  /** An endpoint's bound on open requests in this thread now (its settings id). */
  boundOf(key: string): number { return this.widened.get(key)?.bound ?? this.bound.base; }

  /** Moves an endpoint's bound after its request number `seq` ended (widened and narrowed are counted). */
  private adapt(key: string, seq: number, end: { ok: boolean; durationMs: number; startedFull: boolean }): void {
    const w = this.widened.get(key);
    const was = w?.bound ?? this.bound.base;
    const now = nextBound(was, { ...end, sinceNarrowed: seq > (w?.narrowedAt ?? 0) }, this.bound);
    if (now === was) return;
    if (now <= this.bound.base) this.widened.delete(key);
    else this.widened.set(key, { bound: now, narrowedAt: now < was ? this.begun : w?.narrowedAt ?? 0 });
    this.c.metrics?.boundChanges.inc({ direction: now > was ? 'widened' : 'narrowed' });
  }

  /**
   * Runs one tick and waits for its attempts to finish (tests, the operator's test ping). With
   * `force`, the delivery named by `only` is attempted even before it is due.
   */
  async runOnce(only?: string, force = false): Promise<number> {
    const n = await this.tick(only, force);
    await this.idle();
    return n;
  }

  async idle(): Promise<void> { while (this.running.size > 0) await Promise.all([...this.running]); }

  /** Makes one attempt and records it; an exception in the attempt is recorded as a failed attempt. */
  private async attempt(d: ClaimedDelivery, requestEnded: (end: RequestOutcome) => void = () => {}): Promise<void> {
    const startedAt = this.now();
    if (d.attempt === 1 && d.queuedAt !== null) this.c.metrics?.wait.observe(Math.max(0, startedAt - d.queuedAt) / 1000);
    let r: { outcome: Outcome; statusCode: number | null; error: string | null; durationMs: number };
    try {
      r = await this.post(d, startedAt);
    } catch (err) {
      this.c.log?.error({ err, deliveryId: d.id, attempt: d.attempt, eventId: d.event.id }, 'webhook attempt threw; recorded as a failed attempt');
      r = { outcome: { kind: 'failure' }, statusCode: null, error: `internal_error: ${(err as Error).message}`.slice(0, 500), durationMs: 0 };
    }
    // Refused before any request (SSRF rules, no endpoint, too large): nothing the endpoint did.
    requestEnded({ ok: r.outcome.kind === 'success', durationMs: r.durationMs, sent: r.statusCode !== null || r.durationMs > 0 });
    const now = this.now();
    const next = afterAttempt(d.api, d.attempt, r.outcome, now, this.c.random);
    const delayMs = next.status === 'pending' ? Math.max(0, next.nextAttemptAt - now) : undefined;
    await this.records.submit({
      deliveryId: d.id, attempt: d.attempt, startedAt, durationMs: r.durationMs, statusCode: r.statusCode, error: r.error,
      next: { status: next.status, delayMs },
    });
    this.observe(d, r, next.status, now);
  }

  /** Counts and logs one recorded attempt (its reason when it failed; never the body or the secret). */
  private observe(d: ClaimedDelivery, r: { outcome: Outcome; statusCode: number | null; error: string | null; durationMs: number }, next: string, now: number): void {
    const result = r.outcome.kind === 'success' ? 'success' : r.outcome.kind === 'gone' ? 'gone' : r.statusCode === null && r.durationMs === 0 ? 'refused' : 'failure';
    const m = this.c.metrics;
    if (m) {
      m.attempts.inc({ result });
      if (next !== 'pending') m.deliveries.inc({ outcome: next });
      if (next === 'succeeded' && d.queuedAt !== null) m.latency.observe(Math.max(0, now - d.queuedAt) / 1000);
    }
    const line = {
      deliveryId: d.id, eventId: d.event.id, eventType: d.event.type, merchantId: d.merchantId, attempt: d.attempt,
      result, status: r.statusCode, durationMs: r.durationMs, next, ...(r.error ? { reason: r.error } : {}),
    };
    // A delivered attempt is recorded in the database and counted in the metrics; its line is
    // debug, so that 1,000 deliveries a second are not 1,000 info lines (a failure stays a warning).
    if (result === 'success') this.c.log?.debug(line, 'webhook attempt');
    else this.c.log?.warn(line, 'webhook attempt failed');
  }

  private async post(d: ClaimedDelivery, startedAt: number): Promise<{ outcome: Outcome; statusCode: number | null; error: string | null; durationMs: number }> {
    const failure = (error: string) => ({ outcome: { kind: 'failure' } as Outcome, statusCode: null, error, durationMs: 0 });
    const target = await this.targetOf(d, startedAt);
    if (!target) return failure('no_endpoint: the webhook settings were removed');
    const reach = this.c.allowPrivate || (this.c.allowLoopbackTest && !d.event.livemode ? 'loopback' : false);
    const check = checkTargetUrl(target.url, { requireHttps: d.event.livemode, allowPrivate: reach });
    if (!check.ok) return failure(`${check.rule}: ${check.detail}`);
    const renderStarted = performance.now();
    const { body, headers } = render(d, target.secrets, startedAt, this.c.publicBaseUrl, target.channelCode);
    this.c.metrics?.renderSeconds.inc((performance.now() - renderStarted) / 1000);
    if (Buffer.byteLength(body) > MAX_BODY_BYTES) return failure(`body_too_large: over ${MAX_BODY_BYTES} bytes`);
    const r = await postWebhook(check.url, body, headers, { timeoutMs: this.c.timeoutMs, allowPrivate: reach, resolve: this.c.resolve ?? systemResolver });
    if (r.reused !== null) this.c.metrics?.requests.inc({ socket: r.reused ? 'reused' : 'new' });
    if (r.status === null) return { outcome: { kind: 'failure' }, statusCode: null, error: r.error, durationMs: r.durationMs };
    return {
      outcome: classifyStatus(r.status, r.retryAfter, this.now()), statusCode: r.status, durationMs: r.durationMs,
      error: r.status >= 300 && r.status < 400 ? 'redirect_not_followed' : null,
    };
  }

  /**
   * Where this attempt goes and what signs it. A gateway session's delivery names no settings row:
   * its target is resolved now, in the spec's order (session webhook_url, channel webhook,
   * channel-scoped row, merchant-wide row), so a changed URL applies to pending retries too.
   */
  private async targetOf(d: ClaimedDelivery, now: number): Promise<{ url: string; secrets: string[]; channelCode: string | null } | null> {
    if (d.settings) {
      const url = d.targetUrl ?? d.settings.url;
      return { url, secrets: activeSecrets(d.settings, now), channelCode: null };
    }
    const row = d.event.data as unknown as PaymentRow;
    if (d.api !== 'gateway' || !row.session) return null;
    const c = await gatewayTargetContext(this.c.db, d.merchantId, row.channel_id ?? null, now);
    const t = resolveGatewayTarget({
      sessionWebhookUrl: row.session.webhookUrl, channelId: row.channel_id ?? null,
      channelHook: c.channel?.url ? { url: c.channel.url, secrets: c.channel.secrets } : null, channelSecrets: c.channel?.secrets ?? null,
      rows: c.rows, eventType: d.event.type,
    });
    return t ? { url: t.url, secrets: t.secrets, channelCode: c.channel?.slug ?? null } : null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await this.idle();
  }
}

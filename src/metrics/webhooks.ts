// Webhook figures, counted by whichever thread makes the attempt (the worker threads' dispatchers,
// and the main thread's for operator test pings); the main thread sums the workers' at scrape time.
import { Counter, Histogram, type Registry } from 'prom-client';

export interface WebhookMetrics {
  /** One per attempt: `result` success | failure | gone | refused (SSRF rules, no endpoint, too large). */
  attempts: Counter<'result'>;
  /** One per delivery that ended: `outcome` succeeded | undelivered | gone. */
  deliveries: Counter<'outcome'>;
  /** Event committed (created_at) to the successful attempt's answer. */
  latency: Histogram;
  /**
   * Event committed (created_at) to the start of its first attempt: the wake-up, the claim and the
   * dispatcher's queue. The rest of `latency`, for a delivery answered at once, is the request itself.
   */
  wait: Histogram;
  /** One per change of an endpoint's adaptive bound: `direction` widened | narrowed. */
  boundChanges: Counter<'direction'>;
  /**
   * One per call to look for due work: `source` notify (a commit elsewhere, through LISTEN), commit
   * (this thread's own), slot (a request ended), poll (the safety-net timer). Calls that arrive while
   * a claim runs coalesce into one more claim, so wake-ups ÷ claims tells how much coalesces.
   */
  wakeups: Counter<'source'>;
  /** Claim statements run: `result` took (leased at least one delivery) | empty. */
  claims: Counter<'result'>;
  /** Deliveries leased by those claims: ÷ claims{result="took"} is the claim's batch. */
  claimed: Counter;
  /** Time spent building and signing request bodies (render: the envelope, its JSON, the HMAC). */
  renderSeconds: Counter;
  /** Requests sent, by `socket`: new (a connection opened for it) | reused (keep-alive). */
  requests: Counter<'socket'>;
}

/** Where a dispatcher's call to look for due work came from (webhook_wakeups_total). */
export type WakeupSource = 'notify' | 'commit' | 'slot' | 'poll';

/** Seconds: fine below 100 ms, where a healthy dispatcher lives, coarse above. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200];

export function webhookMetrics(registers: Registry[]): WebhookMetrics {
  return {
    attempts: new Counter({ name: 'webhook_attempts_total', help: 'Webhook POST attempts by result (success, failure, gone, refused).', labelNames: ['result'], registers }),
    deliveries: new Counter({ name: 'webhook_deliveries_total', help: 'Webhook deliveries that ended, by outcome (succeeded, undelivered after the last retry, gone).', labelNames: ['outcome'], registers }),
    latency: new Histogram({
      name: 'webhook_delivery_latency_seconds', help: 'From the delivery\'s write (an outcome\'s: by the statement that commits the outcome, just before its commit; a resend\'s or test ping\'s: the operator\'s request) to the receiver\'s 2xx answer, retries included. Deliveries on a test clock are not counted.',
      buckets: BUCKETS, registers,
    }),
    wait: new Histogram({
      name: 'webhook_dispatch_wait_seconds', help: 'From the delivery\'s write (as webhook_delivery_latency_seconds) to the start of its first attempt: the commit, wake-up, claim and queue. Deliveries on a test clock are not counted.',
      buckets: BUCKETS, registers,
    }),
    boundChanges: new Counter({
      name: 'webhook_endpoint_bound_changes_total',
      help: 'Changes of an endpoint\'s bound on open requests (per dispatch thread): widened by a fast answer with every slot taken, narrowed by a failure or a slow answer.',
      labelNames: ['direction'], registers,
    }),
    wakeups: new Counter({
      name: 'webhook_wakeups_total',
      help: 'Calls to the dispatchers to look for due deliveries, by source (notify: LISTEN; commit: the thread\'s own commit; slot: a request ended; poll: the timer). Calls during a claim coalesce into one more claim.',
      labelNames: ['source'], registers,
    }),
    claims: new Counter({ name: 'webhook_claims_total', help: 'Claim statements run by the dispatchers, by result (took: leased at least one delivery; empty).', labelNames: ['result'], registers }),
    claimed: new Counter({ name: 'webhook_claimed_total', help: 'Deliveries leased by the dispatchers\' claims (÷ webhook_claims_total{result="took"}: deliveries per claim).', registers }),
    renderSeconds: new Counter({ name: 'webhook_render_seconds_total', help: 'Time the dispatchers spent building and signing request bodies (envelope, JSON, HMAC).', registers }),
    requests: new Counter({ name: 'webhook_requests_total', help: 'Webhook requests sent, by socket (new: a connection opened for it; reused: a kept-alive connection).', labelNames: ['socket'], registers }),
  };
}

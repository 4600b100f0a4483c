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
}

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
  };
}

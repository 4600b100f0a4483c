// The webhook scenario reads the server's dispatch-wait histogram from /metrics: the quantile is the
// upper bound of the first bucket holding it, and a histogram with nothing observed (or a quantile
// in the +Inf bucket) gives null rather than a number that was never measured.
import t from 'tap';
import { histogramQuantiles } from '../../bench/webhook-scenario.js';

const text = [
  '# HELP webhook_dispatch_wait_seconds From the event\'s commit to the start of its first attempt.',
  '# TYPE webhook_dispatch_wait_seconds histogram',
  'webhook_dispatch_wait_seconds_bucket{le="0.005"} 10',
  'webhook_dispatch_wait_seconds_bucket{le="0.01"} 60',
  'webhook_dispatch_wait_seconds_bucket{le="0.025"} 98',
  'webhook_dispatch_wait_seconds_bucket{le="0.05"} 99',
  'webhook_dispatch_wait_seconds_bucket{le="+Inf"} 100',
  'webhook_dispatch_wait_seconds_sum 1.5',
  'webhook_dispatch_wait_seconds_count 100',
  'webhook_delivery_latency_seconds_bucket{le="0.005"} 0',
  'webhook_delivery_latency_seconds_bucket{le="+Inf"} 0',
].join('\n');

t.same(histogramQuantiles(text, 'webhook_dispatch_wait_seconds', [0.5, 0.98, 0.99]), [10, 25, 50], 'bucket upper bounds, ms');
t.same(histogramQuantiles(text, 'webhook_dispatch_wait_seconds', [1]), [null], 'the +Inf bucket is no bound');
t.same(histogramQuantiles(text, 'webhook_delivery_latency_seconds', [0.5]), [null], 'nothing observed');
t.same(histogramQuantiles(text, 'no_such_metric', [0.5]), [null], 'absent');

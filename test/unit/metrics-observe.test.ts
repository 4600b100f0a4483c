// The per-request observation: counts and latencies land on their (route, method, status) series
// however often the same series repeats (the children are kept), and a method outside the standard
// set is counted as OTHER (uWS closes such connections today; this keeps a future parser from
// letting a client grow the series).
import t from 'tap';
import { Metrics } from '../../src/metrics/registry.js';

t.test('observe keeps one series per route, method and status', async (t) => {
  const m = new Metrics();
  for (let i = 0; i < 5; i++) m.observe('/api/v2/payments/:id', 'GET', 200, 0.002);
  m.observe('/api/v2/payments/:id', 'GET', 404, 0.001);
  m.observe('/api/v2/payments', 'FROBNICATE', 405, 0.001);
  const text = await m.registry.metrics();
  t.match(text, /^http_requests_total\{method="GET",route="\/api\/v2\/payments\/:id",status="200"\} 5$/m);
  t.match(text, /^http_requests_total\{method="GET",route="\/api\/v2\/payments\/:id",status="404"\} 1$/m);
  t.match(text, /^http_requests_total\{method="OTHER",route="\/api\/v2\/payments",status="405"\} 1$/m);
  t.notMatch(text, /FROBNICATE/);
  t.match(text, /^http_request_duration_seconds_count\{method="GET",route="\/api\/v2\/payments\/:id"\} 6$/m);
});

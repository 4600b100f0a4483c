// loadConfig: the adaptive webhook bound's settings (WEBHOOK_ENDPOINT_CONCURRENCY_MAX and
// WEBHOOK_ENDPOINT_FAST_MS): their defaults, set values, and refusals of bad values (hostile ones
// included), naming the variable.
import t from 'tap';
import { loadConfig } from '../../src/config.js';

t.test('defaults: start at 32, widen up to 128, a 2xx within 1 s is fast', async (t) => {
  const w = loadConfig({}).webhooks;
  t.same([w.perEndpoint, w.perEndpointMax, w.endpointFastMs], [32, 128, 1_000]);
});

t.test('set; a max at or below the start is a fixed bound', async (t) => {
  const w = loadConfig({ WEBHOOK_ENDPOINT_CONCURRENCY: '16', WEBHOOK_ENDPOINT_CONCURRENCY_MAX: '16', WEBHOOK_ENDPOINT_FAST_MS: '250' }).webhooks;
  t.same([w.perEndpoint, w.perEndpointMax, w.endpointFastMs], [16, 16, 250]);
});

t.test('bad values are refused with the variable named', async (t) => {
  for (const name of ['WEBHOOK_ENDPOINT_CONCURRENCY_MAX', 'WEBHOOK_ENDPOINT_FAST_MS']) {
    for (const bad of ['0', '-1', '1.5', 'abc', '12abc', '1e400', '\u0000', '\ud800', '__proto__', ' ']) {
      t.throws(() => loadConfig({ [name]: bad }), new RegExp(`${name} must be an integer >= 1`), `${name}=${JSON.stringify(bad)}`);
    }
  }
});

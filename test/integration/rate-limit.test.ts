// Rate limit per key: exact under concurrency, headers on every answer, fail-open without Redis.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);

t.test('200 parallel requests against a limit of 120 admit exactly 120', async (t) => {
  const m = await s.merchant({ rate_limit_per_minute: null });
  const replies = await Promise.all(Array.from({ length: 200 }, () => s.request('GET', '/api/v2/ping', { key: m.key })));
  const ok = replies.filter((r) => r.status === 200);
  const limited = replies.filter((r) => r.status === 429);
  t.equal(ok.length, 120);
  t.equal(limited.length, 80);
  for (const r of limited) {
    t.equal(r.body.error.type, 'rate_limit_error');
    t.equal(r.body.error.code, 'rate_limited');
    t.ok(Number(r.headers.get('retry-after')) >= 1 && Number(r.headers.get('retry-after')) <= 60);
    t.equal(r.headers.get('x-ratelimit-remaining'), '0');
  }
  for (const r of replies) {
    t.equal(r.headers.get('x-ratelimit-limit'), '120');
    t.ok(Number(r.headers.get('x-ratelimit-reset')) > Date.now() / 1000);
  }
  const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b);
  t.same(remaining, Array.from({ length: 120 }, (_, i) => i), 'each admitted request saw a distinct remaining count');
});

t.test('the limit is per key and the merchant override applies', async (t) => {
  const m = await s.merchant({ rate_limit_per_minute: 5 });
  const k2 = await s.key(m.id);
  const first = await Promise.all(Array.from({ length: 7 }, () => s.request('GET', '/api/v2/ping', { key: m.key })));
  t.equal(first.filter((r) => r.status === 200).length, 5);
  const other = await s.request('GET', '/api/v2/ping', { key: k2.key });
  t.equal(other.status, 200, 'a second key has its own window');
  t.equal(other.headers.get('x-ratelimit-limit'), '5');
  t.equal(other.headers.get('x-ratelimit-remaining'), '4');
});

t.test('rate limiting fails open when the store is unreachable, and says so in /metrics', async (t) => {
  const down = await startTestServer(t, { REDIS_URL: 'redis://127.0.0.1:1' });
  const m = await down.merchant({ rate_limit_per_minute: 3 });
  const replies = await Promise.all(Array.from({ length: 10 }, () => down.request('GET', '/api/v2/ping', { key: m.key })));
  t.ok(replies.every((r) => r.status === 200));
  const metrics = await down.request('GET', '/metrics', { key: 'test-admin-token' });
  const n = Number(/kv_fail_open_total (\d+)/.exec(metrics.text)?.[1]);
  t.ok(n >= 10, `kv_fail_open_total ${n}`);
  const health = await down.request('GET', '/v2/health');
  t.equal(health.status, 200);
  t.equal(health.body.status, 'degraded');
  t.equal(health.body.kv.status, 'down');
});

t.test('spec Limits: rate headers "`X-RateLimit-Limit`, `X-RateLimit-Remaining` on every response" to a valid key, 403 api_disabled included', async (t) => {
  const m = await s.merchant({ rate_limit_per_minute: 4 });
  const rate = (r: { headers: Headers }) => [r.headers.get('x-ratelimit-limit'), r.headers.get('x-ratelimit-remaining')];
  const answers = [
    await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 0 } }),
    await s.request('POST', '/api/v2/payments', { key: m.key, raw: '{"amount":', headers: { 'content-type': 'application/json' } }),
    await s.request('GET', '/api/v2/payments/EXZ-20260101-0000000000', { key: m.key }),
    await s.request('GET', '/api/v2/nowhere', { key: m.key }),
  ];
  t.same(answers.map((r) => r.status), [422, 400, 404, 404]);
  t.same(answers.map(rate), [['4', '3'], ['4', '2'], ['4', '1'], ['4', '0']], 'refusals of a valid key are counted and say so');

  const d = await s.merchant({ rate_limit_per_minute: 3 });
  t.equal((await s.admin('PATCH', `/internal/merchants/${d.id}`, { api_enabled: false })).status, 200);
  const disabled = [];
  for (let i = 0; i < 4; i++) disabled.push(await s.request('GET', '/api/v2/ping', { key: d.key }));
  t.same(disabled.map((r) => [r.status, r.body.error?.code]), Array(4).fill([403, 'api_disabled']), 'past the limit it stays 403 api_disabled');
  t.same(disabled.map(rate), [['3', '2'], ['3', '1'], ['3', '0'], ['3', '0']], '403 api_disabled carries the headers');
  t.ok(disabled.every((r) => Number(r.headers.get('x-ratelimit-reset')) > Date.now() / 1000));
  t.same(Object.keys(disabled[0].body.error).sort(), ['code', 'message', 'param', 'type'], 'the key is not in the envelope');
  const unrouted = await s.request('GET', '/api/v2/nowhere', { key: d.key });
  t.same([unrouted.status, unrouted.headers.get('x-ratelimit-limit')], [404, '3'], 'an unknown path with the disabled key too');

  const none = await s.request('GET', '/api/v2/ping', { key: 'svc_test_' + 'x'.repeat(32) });
  t.same([none.status, none.headers.get('x-ratelimit-limit')], [401, null], 'an invalid key has no rate to tell');
  const doc = (await s.request('GET', '/openapi.json')).body;
  t.ok(doc.components.responses.E403.headers['X-RateLimit-Limit'] && doc.components.responses.E403.headers['X-RateLimit-Remaining'], 'the OpenAPI document says so for 403');
  t.notOk(doc.components.responses.E401.headers['X-RateLimit-Limit'], 'and not for 401');
});

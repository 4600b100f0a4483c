// /metrics after real traffic: prom-client's default process and event-loop metrics, figures
// gathered from the worker threads (per shard), webhook counters and the commit-to-delivery
// histogram after a real delivery, the dispatcher's own counters (wake-ups, claims, signing time,
// sockets), the database gauges (backlog, lags, open attempts), pool usage; and its refusal in the
// operator envelope. Also: a webhook POST says whether it went out on a kept-alive connection.
import http from 'node:http';
import t from 'tap';
import { postWebhook, systemResolver } from '../../actors/webhook-http.js';
import { ADMIN, startTestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';

// Two workers: the metrics gathered per shard are the subject.
const s = await startTestServer(t, { WORKERS: '2', WEBHOOK_ALLOW_PRIVATE: '1', PAYMENT_WINDOW_SECONDS: '1', EXPIRY_POLL_MS: '100', WEBHOOK_POLL_MS: '100' });
const rx = await startReceiver();
t.teardown(() => rx.close());

const scrape = async () => (await s.request('GET', '/metrics', { key: ADMIN })).text;
const value = (text: string, series: RegExp): number | null => {
  const m = new RegExp(`^${series.source} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
};

t.test('/metrics refuses without the operator token, in the operator envelope', async (t) => {
  const r = await s.request('GET', '/metrics');
  t.equal(r.status, 401);
  t.match(r.body, { error: { type: 'authentication_error', code: 'admin_unauthorized', param: null }, request_id: /./ });
});

t.test('after a payment expires and its webhook is delivered', async (t) => {
  const m = await s.merchant();
  t.equal((await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'merchant', url: rx.url })).status, 201);
  const p = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 700 } });
  t.equal(p.status, 201);
  await until('the payment.expired webhook', () => rx.received.some((r) => r.body.includes(p.body.id)));
  let text = '';
  await until('the delivery counted', async () => { text = await scrape(); return (value(text, /webhook_deliveries_total\{outcome="succeeded"\}/) ?? 0) >= 1; });

  for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_gc_duration_seconds', 'nodejs_active_handles_total']) {
    t.match(text, new RegExp(`^# TYPE ${name} `, 'm'), `default metric ${name}`);
  }
  t.ok((value(text, /webhook_attempts_total\{result="success"\}/) ?? 0) >= 1, 'attempts by result');
  t.ok((value(text, /webhook_delivery_latency_seconds_count/) ?? 0) >= 1, 'commit-to-delivery histogram observed');
  t.match(text, /^webhook_delivery_latency_seconds_bucket\{le="\+Inf"\} \d+$/m);
  t.ok((value(text, /webhook_dispatch_wait_seconds_count/) ?? 0) >= 1, 'commit-to-first-attempt histogram observed');
  t.match(text, /^webhook_dispatch_wait_seconds_bucket\{le="0.005"\} \d+$/m, 'with buckets below 50 ms');
  // The dispatcher's own figures (where a webhook's time goes, issue 25).
  const sent = value(text, /webhook_attempts_total\{result="success"\}/) ?? 0;
  const took = value(text, /webhook_claims_total\{result="took"\}/) ?? 0;
  t.ok(took >= 1, `claims that leased a delivery (${took})`);
  t.ok((value(text, /webhook_claimed_total/) ?? 0) >= sent, 'deliveries claimed: at least the attempts made');
  t.ok((value(text, /webhook_claims_total\{result="empty"\}/) ?? 0) >= 1, 'empty claims (the start, the poll) counted apart');
  const wake = (source: string) => value(text, new RegExp(`webhook_wakeups_total\\{source="${source}"\\}`)) ?? 0;
  t.ok(wake('poll') >= 1, 'wake-ups by the poll');
  t.ok(wake('commit') + wake('notify') >= 1, 'the expiry\'s commit woke a dispatcher (its own thread\'s or, through LISTEN, another\'s)');
  t.ok(wake('slot') >= 1, 'the request\'s end woke its dispatcher');
  t.ok((value(text, /webhook_render_seconds_total/) ?? 0) > 0, 'time spent rendering and signing');
  const sockets = (value(text, /webhook_requests_total\{socket="new"\}/) ?? 0) + (value(text, /webhook_requests_total\{socket="reused"\}/) ?? 0);
  t.equal(sockets, sent, 'every request sent is counted by its socket, new or reused');
  t.ok((value(text, /actor_commands_total\{shard="\d"\}/) ?? 0) >= 0, 'commands per shard, gathered from the workers');
  const writes = [...text.matchAll(/^payment_write_rows_total\{shard="\d",writer="create"\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
  t.ok(writes >= 1, 'the create went through a shard\'s group commit');
  t.match(text, /^payment_write_statements_total\{shard="\d",writer="create"\} [1-9]\d*$/m, 'and its statement is counted');
  t.match(text, /^worker_event_loop_delay_seconds\{shard="1",quantile="0.99"\} /m, 'event-loop delay of each worker thread');
  for (const state of ['total', 'used', 'young']) t.ok((value(text, new RegExp(`worker_heap_bytes\\{shard="1",state="${state}"\\}`)) ?? 0) > 0, `worker heap ${state}`);
  // WORKER_OLD_GENERATION_MB (512 by default) reaches each worker: V8's own default would be gigabytes.
  const limit = value(text, /worker_heap_bytes\{shard="0",state="limit"\}/) ?? 0;
  t.ok(limit >= 512 * 2 ** 20 && limit < 1024 * 2 ** 20, `worker heap limit from the configuration (${limit})`);
  t.match(text, /^pg_pool_connections\{pool="front",state="max"\} \d+$/m, 'the main pool');
  t.match(text, /^pg_pool_connections\{pool="w0",state="total"\} \d+$/m, 'a worker\'s actor pool');
  t.match(text, /^pg_pool_connections\{pool="hooks1",state="idle"\} \d+$/m, 'a worker\'s webhook pool');
  t.equal(value(text, /db_gauges_up/), 1);
  for (const g of ['webhook_deliveries_due', 'webhook_deliveries_undelivered', 'webhook_oldest_undelivered_age_seconds', 'outbox_lag_seconds', 'expiry_lag_seconds', 'connector_attempts_open', 'connector_attempt_oldest_open_age_seconds']) {
    t.not(value(text, new RegExp(g)), null, `${g} present`);
  }
  t.equal(value(text, /worker_alive\{shard="0"\}/), 1);
  t.equal(value(text, /http_requests_total\{method="POST",route="\/api\/v2\/payments",status="201"\}/), 1);
});

t.test('the webhook backlog and open attempts are counted from the database', async (t) => {
  const m = await s.merchant();
  // An endpoint that always fails: the delivery stays undelivered (retried later).
  const dead = await startReceiver(() => ({ status: 500 }));
  t.teardown(() => dead.close());
  await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'merchant', url: dead.url });
  await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 800 } });
  await until('a failed attempt', () => dead.received.length >= 1);
  let text = '';
  await until('the failure counted', async () => { text = await scrape(); return (value(text, /webhook_attempts_total\{result="failure"\}/) ?? 0) >= 1; });
  t.ok((value(text, /webhook_deliveries_undelivered/) ?? 0) >= 1, 'the failing delivery is in the backlog');
  t.ok((value(text, /webhook_oldest_undelivered_age_seconds/) ?? 0) > 0, 'with an age');
  // An acquirer attempt left open (as a crash would leave it): counted until recovery settles it.
  const p = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 900 } });
  await s.db.query(`INSERT INTO connector_attempts (id, aggregate_id, operation, connector, amount, currency, status, created_at)
                    VALUES ('att_metrics_test', $1, 'charge', 'sandbox', 900, 'AZN', 'started', now() - interval '5 seconds')`, [p.body.id]);
  text = await scrape();
  t.ok((value(text, /connector_attempts_open/) ?? 0) >= 1, 'open attempts counted');
  t.ok((value(text, /connector_attempt_oldest_open_age_seconds/) ?? 0) >= 4, 'oldest open attempt age');
});

t.test('requests are counted per route pattern, method and status', async (t) => {
  const m = await s.merchant();
  const before = await scrape();
  const series = /http_requests_total\{method="GET",route="\/api\/v2\/ping",status="200"\}/;
  for (let i = 0; i < 3; i++) t.equal((await s.request('GET', '/api/v2/ping', { key: m.key })).status, 200);
  const text = await scrape();
  t.equal((value(text, series) ?? 0) - (value(before, series) ?? 0), 3);
  t.ok((value(text, /http_request_duration_seconds_count\{method="GET",route="\/api\/v2\/ping"\}/) ?? 0) >= 3, 'latency observed per route and method');
});

t.test('a webhook POST says whether its connection was new or kept alive', async (t) => {
  const server = http.createServer((req, res) => { req.resume(); req.on('end', () => res.end('ok')); });
  server.keepAliveTimeout = 600_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  const url = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`);
  const post = () => postWebhook(url, '{}', {}, { timeoutMs: 30_000, allowPrivate: true, resolve: systemResolver });
  const first = await post();
  t.match(first, { status: 200, reused: false }, 'the first request opened a connection');
  const second = await post();
  t.match(second, { status: 200, reused: true }, 'the next one went out on it again');
  const closed = await postWebhook(new URL('http://127.0.0.1:1/hooks'), '{}', {}, { timeoutMs: 30_000, allowPrivate: true, resolve: systemResolver });
  t.match(closed, { status: null, reused: null }, 'a connection refused is neither');
});

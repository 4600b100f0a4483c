// Health (200, and 503 when the database is unreachable), Prometheus metrics, and an OpenAPI 3.1
// document that a standard validator accepts.
import t from 'tap';
import { gatewayChannelRoutes } from '../../src/http/routes/gateway-channels.js';
import { gatewayPayoutRoutes } from '../../src/http/routes/gateway-payouts.js';
import { gatewayCheckoutRoutes } from '../../src/http/routes/gateway-checkout.js';
import { gatewayPaymentRoutes } from '../../src/http/routes/gateway-payments.js';
import { testClockRoutes } from '../../src/http/routes/test-clocks.js';
import pg from 'pg';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestServer, ADMIN } from '../helpers/server.js';

// Two workers: health and metrics report each of them.
const s = await startTestServer(t, { WORKERS: '2' });

t.test('health reports database, key-value store and workers', async (t) => {
  const r = await s.request('GET', '/v2/health');
  t.equal(r.status, 200);
  t.match(r.body, { status: 'ok', database: { status: 'up' }, kv: { status: 'up' }, workers: { count: 2, alive: 2 } });
  t.match(r.body.request_id, /^req_/);
});

t.test('metrics: request counts by route and status, latency histogram, actor gauges', async (t) => {
  const m = await s.merchant();
  await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100 } });
  await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 1.5 } });
  t.equal((await s.request('GET', '/metrics')).status, 401, 'needs the operator token by default');
  const r = await s.request('GET', '/metrics', { key: ADMIN });
  t.equal(r.status, 200);
  t.match(r.headers.get('content-type'), /text\/plain/);
  t.match(r.text, /http_requests_total\{method="POST",route="\/api\/v2\/payments",status="201"\} 1/);
  t.match(r.text, /http_requests_total\{method="POST",route="\/api\/v2\/payments",status="422"\} 1/);
  t.match(r.text, /http_request_duration_seconds_bucket\{le="\+Inf",method="POST",route="\/api\/v2\/payments"\} 2/);
  for (const name of ['actor_mailbox_depth', 'actor_count', 'worker_queue', 'worker_alive', 'kv_fail_open_total']) t.match(r.text, new RegExp(`^# TYPE ${name} `, 'm'));
  t.match(r.text, /worker_alive\{shard="1"\} 1/);
});

t.test('each server in one process names its own base URL in its OpenAPI document', async (t) => {
  const other = await startTestServer(t, { PUBLIC_BASE_URL: 'https://pay.other.example' });
  const [mine, theirs] = await Promise.all([s, other].map((x) => x.request('GET', '/openapi.json')));
  t.equal(theirs.body.servers[0].variables.base_url.default, 'https://pay.other.example');
  t.equal(mine.body.servers[0].variables.base_url.default, s.srv.services.config.publicBaseUrl, 'the first server\'s document is not the second\'s');
  await other.close();
});

t.test('OpenAPI 3.1 generated from the schemas validates', async (t) => {
  const r = await s.request('GET', '/openapi.json');
  t.equal(r.status, 200);
  t.equal(r.body.openapi, '3.1.0');
  const v = new Validator();
  const res = await v.validate(r.body);
  t.ok(res.valid, JSON.stringify(res.errors));
  t.ok(r.body.paths['/payments'].post && r.body.paths['/payments/{id}'].get);
  t.same(r.body.components.schemas.CreatePaymentRequest.required, ['amount']);
  t.equal(r.body.components.schemas.CreatePaymentRequest.properties.description.maxLength, 200);
  t.ok(r.body.paths['/links'].post && r.body.paths['/links'].get && r.body.paths['/links/{id}'].get && r.body.paths['/links/{id}/deactivate'].post, 'payment links');
  t.same(r.body.components.schemas.PaymentLink.required.slice(0, 3), ['id', 'object', 'livemode']);
  // Every gateway key-authenticated route is documented, under the gateway's own server.
  for (const route of [...gatewayChannelRoutes, ...gatewayPayoutRoutes, ...gatewayCheckoutRoutes, ...gatewayPaymentRoutes, ...testClockRoutes.filter((x) => x.api === 'gateway')]) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    t.ok(r.body.paths[path]?.[route.method.toLowerCase()], `${route.method} ${path} documented`);
    t.equal(r.body.paths[path]?.servers?.[0]?.url, r.body.servers[0].url.replace(/\/api\/v2$/, ''), `${path} names the gateway server`);
  }
  // Test clocks (issue 26): the merchant API's under its own server, with the schemas they name.
  for (const route of testClockRoutes.filter((x) => x.api === 'merchant')) {
    t.ok(r.body.paths[route.path.replace(/^\/api\/v2/, '').replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()], `${route.method} ${route.path} documented`);
  }
  t.same(r.body.components.schemas.AdvanceTestClockRequest.required, ['frozen_time']);
  t.ok(r.body.components.schemas.CreatePaymentRequest.properties.test_clock && r.body.components.schemas.CreateGatewayPaymentRequest.properties.test_clock);
  t.same(r.body.components.schemas.CreateChannelRequest.required, ['slug', 'name']);
  t.same(r.body.components.schemas.CreateCheckoutRequest.required, ['amount', 'currency']);
  t.equal(r.body.components.schemas.CreateCheckoutRequest.properties.description.maxLength, 500);
  t.ok(r.body.components.securitySchemes.gatewayApiKey && r.body.components.responses.G400);
});

t.test('health is 503 when the database is unreachable, and recovers', async (t) => {
  const target = new URL(s.srv.databaseUrl);
  const dbName = target.pathname.slice(1);
  const other = new URL(s.srv.databaseUrl);
  other.pathname = '/template1';
  const admin = new pg.Client({ connectionString: other.toString() });
  await admin.connect();
  t.teardown(() => admin.end());
  await admin.query(`ALTER DATABASE "${dbName}" WITH ALLOW_CONNECTIONS false`);
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
  try {
    const r = await s.request('GET', '/v2/health');
    t.equal(r.status, 503);
    t.equal(r.body.database.status, 'down');
    t.equal(r.body.status, 'down');
    const m = await s.request('GET', '/api/v2/ping', { key: 'svc_test_unknownkeyunknownkeyunknownkey' });
    t.equal(m.status, 503, 'a request that needs the database gets the envelope, not a hang');
    t.equal(m.body.error.code, 'service_unavailable');
    t.equal(m.headers.get('retry-after'), '1');
  } finally {
    await admin.query(`ALTER DATABASE "${dbName}" WITH ALLOW_CONNECTIONS true`);
  }
  const back = await s.request('GET', '/v2/health');
  t.equal(back.status, 200);
});

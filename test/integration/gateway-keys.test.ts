// Gateway keys: every key kind against every endpoint group on this branch (the matrix), the two
// headers, test/live and merchant isolation, channel-scoped keys, issuance rules, rate limits.
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';

const s = await startTestServer(t);

async function issue(srv: TestServer, merchant: string, body: Record<string, unknown>) {
  const r = await srv.admin('POST', `/internal/merchants/${merchant}/api-keys`, body);
  if (r.status !== 201) throw new Error(`key: ${r.text}`);
  return r.body as { id: string; key: string; channel_id: string | null; permissions: string[] | null };
}

const a = await s.merchant();
const b = await s.merchant();
const keys = {
  sk: (await issue(s, a.id, { kind: 'secret', mode: 'test' })).key,
  skLive: (await issue(s, a.id, { kind: 'secret', mode: 'live' })).key,
  rkRead: (await issue(s, a.id, { kind: 'restricted', mode: 'test', permissions: ['channels:read'] })).key,
  rkWrite: (await issue(s, a.id, { kind: 'restricted', mode: 'test', permissions: ['channels:write'] })).key,
  rkPayments: (await issue(s, a.id, { kind: 'restricted', mode: 'test', permissions: ['payments:write', 'refunds:write'] })).key,
  rkPaymentsRead: (await issue(s, a.id, { kind: 'restricted', mode: 'test', permissions: ['payments:read'] })).key,
  rkNone: (await issue(s, a.id, { kind: 'restricted', mode: 'test' })).key,
  pk: (await issue(s, a.id, { kind: 'publishable', mode: 'test' })).key,
  svc: a.key,
};
const bSk = (await issue(s, b.id, { kind: 'secret', mode: 'test' })).key;
const defaultOf = async (key: string) => {
  const r = await s.request('GET', '/v1/channels', { key });
  return (r.body.data as { id: string; is_default: boolean }[]).find((c) => c.is_default)!;
};

t.test('every merchant starts with one default channel per mode', async (t) => {
  const test = await s.request('GET', '/v1/channels', { key: keys.sk });
  const live = await s.request('GET', '/v1/channels', { key: keys.skLive });
  t.equal(test.status, 200);
  t.equal(test.body.data.length, 1);
  t.equal(live.body.data.length, 1);
  t.match(test.body.data[0], { object: 'channel', slug: 'default', status: 'active', is_default: true, livemode: false });
  t.match(live.body.data[0], { slug: 'default', is_default: true, livemode: true });
  t.not(test.body.data[0].id, live.body.data[0].id, 'test and live channels are distinct');
  t.notOk('webhook_secret' in test.body.data[0], 'the secret is not listed');
  const rows = await s.db.query('SELECT count(*)::int AS n FROM channels WHERE merchant_id = $1 AND is_default', [b.id]);
  t.equal(rows.rows[0].n, 2);
});

t.test('the matrix: key kinds against endpoint groups', async (t) => {
  const chTest = await defaultOf(keys.sk);
  // group -> request; expected status per key (a 409 "is default" means the key passed the gate).
  const groups: Record<string, { method: string; path: string; body?: unknown; expect: Record<keyof typeof keys, [number, string | null]> }> = {
    'gateway channels:read': {
      method: 'GET', path: `/v1/channels/${chTest.id}`,
      expect: {
        sk: [200, null], skLive: [404, 'CHANNEL_NOT_FOUND'], rkRead: [200, null], rkWrite: [200, null], rkPayments: [403, 'PERMISSION_DENIED'], rkPaymentsRead: [403, 'PERMISSION_DENIED'],
        rkNone: [403, 'PERMISSION_DENIED'], pk: [403, 'PUBLISHABLE_KEY_NOT_ALLOWED'], svc: [401, 'API_KEY_WRONG_API'],
      },
    },
    'gateway channels:write': {
      method: 'POST', path: `/v1/channels/${chTest.id}/pause`,
      expect: {
        sk: [409, 'CHANNEL_IS_DEFAULT'], skLive: [404, 'CHANNEL_NOT_FOUND'], rkRead: [403, 'PERMISSION_DENIED'], rkWrite: [409, 'CHANNEL_IS_DEFAULT'],
        rkPayments: [403, 'PERMISSION_DENIED'], rkPaymentsRead: [403, 'PERMISSION_DENIED'], rkNone: [403, 'PERMISSION_DENIED'], pk: [403, 'PUBLISHABLE_KEY_NOT_ALLOWED'], svc: [401, 'API_KEY_WRONG_API'],
      },
    },
    'gateway payments:write (test helper)': {
      method: 'POST', path: '/v2/test/checkout/EXZ-20260101-0000000000/complete', body: { outcome: 'succeeded' },
      expect: {
        sk: [404, 'PAYMENT_NOT_FOUND'], skLive: [404, 'ROUTE_NOT_FOUND'], rkRead: [403, 'PERMISSION_DENIED'], rkWrite: [403, 'PERMISSION_DENIED'],
        rkPayments: [404, 'PAYMENT_NOT_FOUND'], rkPaymentsRead: [403, 'PERMISSION_DENIED'], rkNone: [403, 'PERMISSION_DENIED'], pk: [403, 'PUBLISHABLE_KEY_NOT_ALLOWED'], svc: [401, 'API_KEY_WRONG_API'],
      },
    },
    'gateway checkout sessions: create (payments:write)': {
      method: 'POST', path: '/v2/payments/checkout', body: { amount: 100, currency: 'XXX' },
      expect: {
        sk: [400, 'VALIDATION_ERROR'], skLive: [400, 'VALIDATION_ERROR'], rkRead: [403, 'PERMISSION_DENIED'], rkWrite: [403, 'PERMISSION_DENIED'],
        rkPayments: [400, 'VALIDATION_ERROR'], rkPaymentsRead: [403, 'PERMISSION_DENIED'], rkNone: [403, 'PERMISSION_DENIED'], pk: [403, 'PUBLISHABLE_KEY_NOT_ALLOWED'], svc: [401, 'API_KEY_WRONG_API'],
      },
    },
    'gateway payments: list (payments:read)': {
      method: 'GET', path: '/v2/payments',
      expect: {
        sk: [200, null], skLive: [200, null], rkRead: [403, 'PERMISSION_DENIED'], rkWrite: [403, 'PERMISSION_DENIED'],
        rkPayments: [200, null], rkPaymentsRead: [200, null], rkNone: [403, 'PERMISSION_DENIED'], pk: [403, 'PUBLISHABLE_KEY_NOT_ALLOWED'], svc: [401, 'API_KEY_WRONG_API'],
      },
    },
    'gateway payments: read (payments:read)': {
      method: 'GET', path: '/v2/payments/cs_000000000000000000000000',
      expect: {
        sk: [404, 'PAYMENT_NOT_FOUND'], skLive: [404, 'PAYMENT_NOT_FOUND'], rkRead: [403, 'PERMISSION_DENIED'], rkWrite: [403, 'PERMISSION_DENIED'],
        rkPayments: [404, 'PAYMENT_NOT_FOUND'], rkPaymentsRead: [404, 'PAYMENT_NOT_FOUND'], rkNone: [403, 'PERMISSION_DENIED'], pk: [403, 'PUBLISHABLE_KEY_NOT_ALLOWED'], svc: [401, 'API_KEY_WRONG_API'],
      },
    },
    'gateway payments: create (payments:write)': {
      method: 'POST', path: '/v2/payments', body: { amount: 100, currency: 'XXX' },
      expect: {
        sk: [400, 'VALIDATION_ERROR'], skLive: [400, 'VALIDATION_ERROR'], rkRead: [403, 'PERMISSION_DENIED'], rkWrite: [403, 'PERMISSION_DENIED'],
        rkPayments: [400, 'VALIDATION_ERROR'], rkPaymentsRead: [403, 'PERMISSION_DENIED'], rkNone: [403, 'PERMISSION_DENIED'], pk: [403, 'PUBLISHABLE_KEY_NOT_ALLOWED'], svc: [401, 'API_KEY_WRONG_API'],
      },
    },
    'gateway payments: capture (payments:write)': {
      method: 'POST', path: '/v2/payments/cs_000000000000000000000000/capture', body: {},
      expect: {
        sk: [404, 'PAYMENT_NOT_FOUND'], skLive: [404, 'PAYMENT_NOT_FOUND'], rkRead: [403, 'PERMISSION_DENIED'], rkWrite: [403, 'PERMISSION_DENIED'],
        rkPayments: [404, 'PAYMENT_NOT_FOUND'], rkPaymentsRead: [403, 'PERMISSION_DENIED'], rkNone: [403, 'PERMISSION_DENIED'], pk: [403, 'PUBLISHABLE_KEY_NOT_ALLOWED'], svc: [401, 'API_KEY_WRONG_API'],
      },
    },
    'gateway payments: cancel (payments:write)': {
      method: 'POST', path: '/v2/payments/cs_000000000000000000000000/cancel', body: {},
      expect: {
        sk: [404, 'PAYMENT_NOT_FOUND'], skLive: [404, 'PAYMENT_NOT_FOUND'], rkRead: [403, 'PERMISSION_DENIED'], rkWrite: [403, 'PERMISSION_DENIED'],
        rkPayments: [404, 'PAYMENT_NOT_FOUND'], rkPaymentsRead: [403, 'PERMISSION_DENIED'], rkNone: [403, 'PERMISSION_DENIED'], pk: [403, 'PUBLISHABLE_KEY_NOT_ALLOWED'], svc: [401, 'API_KEY_WRONG_API'],
      },
    },
    'gateway payments: refund (refunds:write)': {
      method: 'POST', path: '/v2/payments/cs_000000000000000000000000/refund', body: {},
      expect: {
        sk: [404, 'PAYMENT_NOT_FOUND'], skLive: [404, 'PAYMENT_NOT_FOUND'], rkRead: [403, 'PERMISSION_DENIED'], rkWrite: [403, 'PERMISSION_DENIED'],
        rkPayments: [404, 'PAYMENT_NOT_FOUND'], rkPaymentsRead: [403, 'PERMISSION_DENIED'], rkNone: [403, 'PERMISSION_DENIED'], pk: [403, 'PUBLISHABLE_KEY_NOT_ALLOWED'], svc: [401, 'API_KEY_WRONG_API'],
      },
    },
    'gateway checkout sessions: read (payments:read)': {
      method: 'GET', path: '/v2/payments/checkout/cs_000000000000000000000000',
      expect: {
        sk: [404, 'CHECKOUT_SESSION_NOT_FOUND'], skLive: [404, 'CHECKOUT_SESSION_NOT_FOUND'], rkRead: [403, 'PERMISSION_DENIED'], rkWrite: [403, 'PERMISSION_DENIED'],
        rkPayments: [404, 'CHECKOUT_SESSION_NOT_FOUND'], rkPaymentsRead: [404, 'CHECKOUT_SESSION_NOT_FOUND'], rkNone: [403, 'PERMISSION_DENIED'], pk: [403, 'PUBLISHABLE_KEY_NOT_ALLOWED'], svc: [401, 'API_KEY_WRONG_API'],
      },
    },
    'widget: session': {
      method: 'POST', path: '/widget/v1/session', body: { amount: 100, currency: 'XXX' },
      expect: {
        sk: [400, 'VALIDATION_ERROR'], skLive: [400, 'VALIDATION_ERROR'], rkRead: [403, 'PERMISSION_DENIED'], rkWrite: [403, 'PERMISSION_DENIED'],
        rkPayments: [400, 'VALIDATION_ERROR'], rkPaymentsRead: [403, 'PERMISSION_DENIED'], rkNone: [403, 'PERMISSION_DENIED'], pk: [400, 'VALIDATION_ERROR'], svc: [401, 'API_KEY_WRONG_API'],
      },
    },
    'widget: methods': {
      method: 'GET', path: '/widget/v1/methods',
      expect: {
        sk: [200, null], skLive: [200, null], rkRead: [403, 'PERMISSION_DENIED'], rkWrite: [403, 'PERMISSION_DENIED'],
        rkPayments: [200, null], rkPaymentsRead: [200, null], rkNone: [403, 'PERMISSION_DENIED'], pk: [200, null], svc: [401, 'API_KEY_WRONG_API'],
      },
    },
    'merchant API': {
      method: 'GET', path: '/api/v2/ping',
      expect: {
        sk: [401, 'api_key_wrong_api'], skLive: [401, 'api_key_wrong_api'], rkRead: [401, 'api_key_wrong_api'], rkWrite: [401, 'api_key_wrong_api'],
        rkPayments: [401, 'api_key_wrong_api'], rkPaymentsRead: [401, 'api_key_wrong_api'], rkNone: [401, 'api_key_wrong_api'], pk: [401, 'api_key_wrong_api'], svc: [200, null],
      },
    },
    operator: {
      method: 'GET', path: `/internal/merchants/${a.id}`,
      expect: Object.fromEntries(Object.keys(keys).map((k) => [k, [401, 'admin_unauthorized']])) as Record<keyof typeof keys, [number, string]>,
    },
    'public health': {
      method: 'GET', path: '/v2/health',
      expect: Object.fromEntries(Object.keys(keys).map((k) => [k, [200, null]])) as Record<keyof typeof keys, [number, null]>,
    },
  };
  for (const [group, g] of Object.entries(groups)) {
    for (const [name, key] of Object.entries(keys) as [keyof typeof keys, string][]) {
      const r = await s.request(g.method, g.path, { key, body: g.body });
      const [status, code] = g.expect[name];
      t.equal(r.status, status, `${group} with ${name}: ${r.text.slice(0, 200)}`);
      if (code) t.equal(r.body.error.code, code, `${group} with ${name}`);
    }
  }
});

t.test('401 in the gateway envelope for no key, garbage, unknown and revoked keys', async (t) => {
  const revoked = await issue(s, a.id, { kind: 'secret', mode: 'test' });
  t.equal((await s.admin('DELETE', `/internal/merchants/${a.id}/api-keys/${revoked.id}`)).status, 200);
  const cases: [string, Record<string, string>, string][] = [
    ['no header', {}, 'AUTHENTICATION_REQUIRED'],
    ['basic scheme', { authorization: `Basic ${keys.sk}` }, 'API_KEY_INVALID'],
    ['garbage', { authorization: 'Bearer x' }, 'API_KEY_INVALID'],
    ['unknown sk', { authorization: 'Bearer sk_test_00000000000000000000000000000000' }, 'API_KEY_INVALID'],
    ['revoked', { authorization: `Bearer ${revoked.key}` }, 'API_KEY_INVALID'],
    ['a key with its prefix changed', { authorization: `Bearer rk_${keys.sk.slice(3)}` }, 'API_KEY_INVALID'],
    ['empty X-API-Key', { 'x-api-key': ' ' }, 'AUTHENTICATION_REQUIRED'],
  ];
  for (const [name, headers, code] of cases) {
    const r = await s.request('GET', '/v1/channels', { headers });
    t.equal(r.status, 401, name);
    t.same(Object.keys(r.body.error).sort(), ['code', 'message'], `${name}: {code, message}`);
    t.equal(r.body.error.code, code, name);
  }
});

t.test('X-API-Key is the legacy alias; both headers at once is 400 VALIDATION_ERROR', async (t) => {
  const r = await s.request('GET', '/v1/channels', { headers: { 'x-api-key': keys.sk } });
  t.equal(r.status, 200);
  const both = await s.request('GET', '/v1/channels', { headers: { 'x-api-key': keys.sk, authorization: `Bearer ${keys.sk}` } });
  t.equal(both.status, 400);
  t.equal(both.body.error.code, 'VALIDATION_ERROR');
  t.equal(both.body.error.param, 'X-API-Key');
  t.match(both.body.error.message, /not both/);
});

t.test('another merchant\'s channel is 404 in every form of its id', async (t) => {
  const ch = await defaultOf(keys.sk);
  const full = (await s.request('GET', `/v1/channels/${ch.id}`, { key: keys.sk })).body;
  for (const ref of [full.id, full.uuid, full.slug]) {
    const mine = await s.request('GET', `/v1/channels/${ref}`, { key: keys.sk });
    t.equal(mine.status, 200, `own by ${ref}`);
    t.equal(mine.body.id, full.id);
  }
  for (const ref of [full.id, full.uuid]) {
    const r = await s.request('GET', `/v1/channels/${ref}`, { key: bSk });
    t.equal(r.status, 404, `foreign by ${ref}`);
    t.equal(r.body.error.code, 'CHANNEL_NOT_FOUND');
  }
  // The slug "default" names B's own default channel, not A's.
  t.not((await s.request('GET', '/v1/channels/default', { key: bSk })).body.id, full.id);
});

t.test('channel-scoped keys see and touch only their channel', async (t) => {
  const made = await s.request('POST', '/v1/channels', { key: keys.sk, body: { slug: 'bot', name: 'Telegram bot' } });
  t.equal(made.status, 200, made.text);
  const scoped = await issue(s, a.id, { kind: 'secret', mode: 'test', channel_id: 'bot' });
  t.equal(scoped.channel_id, made.body.id, 'stored as the public id whichever form was given');
  const other = await defaultOf(keys.sk);
  const list = await s.request('GET', '/v1/channels', { key: scoped.key });
  t.same(list.body.data.map((c: { id: string }) => c.id), [made.body.id]);
  t.equal((await s.request('GET', `/v1/channels/${made.body.uuid}`, { key: scoped.key })).status, 200);
  const foreign = await s.request('GET', `/v1/channels/${other.id}`, { key: scoped.key });
  t.equal(foreign.status, 403);
  t.equal(foreign.body.error.code, 'CHANNEL_FORBIDDEN');
  const create = await s.request('POST', '/v1/channels', { key: scoped.key, body: { slug: 'web', name: 'Web' } });
  t.equal(create.status, 403, 'creating is account-wide');
  t.equal(create.body.error.code, 'CHANNEL_FORBIDDEN');
  const promote = await s.request('POST', `/v1/channels/${made.body.id}/promote-default`, { key: scoped.key });
  t.equal(promote.status, 403, 'promote-default is account-wide');
  const pause = await s.request('POST', `/v1/channels/${made.body.id}/pause`, { key: scoped.key });
  t.equal(pause.status, 200, 'its own channel can be paused');
  t.equal((await s.request('POST', `/v1/channels/${made.body.id}/resume`, { key: scoped.key })).status, 200);
});

t.test('issuing keys: permissions only on restricted keys, known names only, channel of the same mode', async (t) => {
  const bad: [Record<string, unknown>, number, string, string][] = [
    [{ kind: 'secret', mode: 'test', permissions: ['channels:read'] }, 422, 'parameter_invalid', 'permissions'],
    [{ kind: 'publishable', mode: 'test', permissions: [] }, 422, 'parameter_invalid', 'permissions'],
    [{ kind: 'restricted', mode: 'test', permissions: ['channels:*'] }, 422, 'parameter_invalid', 'permissions.0'],
    [{ kind: 'restricted', mode: 'test', permissions: ['payments:delete'] }, 422, 'parameter_invalid', 'permissions.0'],
    [{ kind: 'restricted', mode: 'test', permissions: ['payments:read', 'payments:read'] }, 422, 'parameter_invalid', 'permissions'],
    [{ kind: 'merchant', mode: 'test', channel_id: 'default' }, 422, 'parameter_invalid', 'channel_id'],
    [{ kind: 'secret', mode: 'live', channel_id: 'bot' }, 404, 'channel_not_found', 'channel_id'],
    [{ kind: 'secret', mode: 'test', channel_id: 'ch_00000000000000000000' }, 404, 'channel_not_found', 'channel_id'],
    [{ kind: 'secret', mode: 'test', channel_id: 'Not A Slug' }, 404, 'channel_not_found', 'channel_id'],
  ];
  for (const [body, status, code, param] of bad) {
    const r = await s.admin('POST', `/internal/merchants/${a.id}/api-keys`, body);
    t.equal(r.status, status, JSON.stringify(body));
    t.equal(r.body.error.code, code, JSON.stringify(body));
    t.equal(r.body.error.param, param, JSON.stringify(body));
  }
  const bChannel = await defaultOf(bSk);
  const foreign = await s.admin('POST', `/internal/merchants/${a.id}/api-keys`, { kind: 'secret', mode: 'test', channel_id: bChannel.id });
  t.equal(foreign.status, 404, 'another merchant\'s channel');
  const ok = await issue(s, a.id, { kind: 'restricted', mode: 'live', permissions: ['payments:read', 'payouts:write'] });
  t.match(ok, { kind: 'restricted', mode: 'live', channel_id: null, permissions: ['payments:read', 'payouts:write'] });
  t.match(ok.key, /^rk_live_[0-9A-Za-z]{32}$/);
  const pk = await issue(s, a.id, { kind: 'publishable', mode: 'live' });
  t.match(pk.key, /^pk_live_/);
  t.equal(pk.permissions, null);
});

t.test('gateway answers carry the key\'s rate limit; past it, 429 RATE_LIMITED with Retry-After', async (t) => {
  const m = await s.merchant({ rate_limit_per_minute: 2 });
  const key = (await issue(s, m.id, { kind: 'secret', mode: 'test' })).key;
  const first = await s.request('GET', '/v1/channels', { key });
  t.equal(first.headers.get('x-ratelimit-limit'), '2');
  t.equal(first.headers.get('x-ratelimit-remaining'), '1');
  await s.request('GET', '/v1/channels', { key });
  const third = await s.request('GET', '/v1/channels', { key });
  t.equal(third.status, 429);
  t.equal(third.body.error.code, 'RATE_LIMITED');
  t.ok(Number(third.headers.get('retry-after')) >= 1);
});

t.test('a disabled merchant API refuses gateway keys with 403', async (t) => {
  const m = await s.merchant();
  const key = (await issue(s, m.id, { kind: 'secret', mode: 'test' })).key;
  await s.admin('PATCH', `/internal/merchants/${m.id}`, { api_enabled: false });
  const r = await s.request('GET', '/v1/channels', { key });
  t.equal(r.status, 403);
  t.equal(r.body.error.code, 'API_DISABLED');
});

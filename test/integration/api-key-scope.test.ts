// The gateway spec's wording of key issuance (Endpoints rule 8): "API keys are created with scope
// (channel or restricted), channel_id and optional permissions array" through
// POST /internal/merchants/{id}/api-keys. `scope` is accepted beside `kind`: channel is a secret key
// pinned to channel_id, restricted a restricted key; the answer names the scope.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const sk = (await s.key(m.id, 'secret', 'test')).key;
const bot = await s.request('POST', '/v1/channels', { key: sk, body: { slug: 'bot', name: 'Bot' } });
const web = await s.request('POST', '/v1/channels', { key: sk, body: { slug: 'web', name: 'Web' } });
const issue = (body: Record<string, unknown>) => s.admin('POST', `/internal/merchants/${m.id}/api-keys`, body);

t.test('scope channel: a secret key pinned to its channel', async (t) => {
  t.equal(bot.status, 200, bot.text);
  const r = await issue({ scope: 'channel', channel_id: 'bot', mode: 'test' });
  t.equal(r.status, 201, r.text);
  t.match(r.body, { kind: 'secret', scope: 'channel', mode: 'test', channel_id: bot.body.id, permissions: null });
  t.match(r.body.key, /^sk_test_/);
  const own = await s.request('POST', '/v2/payments/checkout', { key: r.body.key, body: { amount: 100, currency: 'RUB' } });
  t.same([own.status, own.body.channel_id], [200, bot.body.id], 'its own channel by default');
  const other = await s.request('POST', '/v2/payments/checkout', { key: r.body.key, body: { amount: 100, currency: 'RUB', channel_id: web.body.id } });
  t.same([other.status, other.body.error?.code], [403, 'CHANNEL_FORBIDDEN'], 'another channel is 403');
});

t.test('scope restricted: a restricted key with its permissions (and optionally a channel)', async (t) => {
  const r = await issue({ scope: 'restricted', mode: 'test', permissions: ['payments:read'] });
  t.equal(r.status, 201, r.text);
  t.match(r.body, { kind: 'restricted', scope: 'restricted', channel_id: null, permissions: ['payments:read'] });
  t.match(r.body.key, /^rk_test_/);
  t.equal((await s.request('GET', '/v2/payments', { key: r.body.key })).status, 200, 'payments:read works');
  t.equal((await s.request('POST', '/v2/payments/checkout', { key: r.body.key, body: { amount: 100, currency: 'RUB' } })).status, 403, 'payments:write is not granted');
  const pinned = await issue({ scope: 'restricted', mode: 'test', permissions: ['payments:write'], channel_id: 'web' });
  t.match(pinned.body, { kind: 'restricted', scope: 'restricted', channel_id: web.body.id });
});

t.test('kind alone still works and names its scope; bad combinations are refused naming the field', async (t) => {
  const plain = await issue({ kind: 'secret', mode: 'test' });
  t.match(plain.body, { kind: 'secret', scope: null, channel_id: null });
  const pinned = await issue({ kind: 'secret', mode: 'test', channel_id: 'bot' });
  t.match(pinned.body, { kind: 'secret', scope: 'channel' });
  const bad: [Record<string, unknown>, number, string, string][] = [
    [{ scope: 'channel', mode: 'test' }, 422, 'parameter_missing', 'channel_id'],
    [{ scope: 'channel', kind: 'restricted', mode: 'test', channel_id: 'bot' }, 422, 'parameter_invalid', 'scope'],
    [{ scope: 'restricted', kind: 'publishable', mode: 'test' }, 422, 'parameter_invalid', 'scope'],
    [{ scope: 'account', mode: 'test' }, 422, 'parameter_invalid', 'scope'],
    [{ mode: 'test' }, 422, 'parameter_missing', 'kind'],
  ];
  for (const [body, status, code, param] of bad) {
    const r = await issue(body);
    t.same([r.status, r.body.error?.code, r.body.error?.param], [status, code, param], JSON.stringify(body));
  }
});

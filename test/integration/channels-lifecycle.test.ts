// /v1/channels: create with bad values, update, pause/resume, soft delete/restore, promote-default
// (also under parallel requests), hard delete refused with its reasons, secret rotation, and the
// channel resolution new sessions use.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { resolveChannelForSession } from '../../src/http/gateway.js';
import type { Principal } from '../../src/http/auth.js';
import type { Services } from '../../src/http/services.js';
import { isFailure } from '../../src/errors.js';
import { PaymentReads } from '../../src/store/payment-reads.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'RUB', 'USD'] });
const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;
const req = (method: string, path: string, body?: unknown) => s.request(method, path, { key: sk, body });
const create = async (slug: string, extra: Record<string, unknown> = {}) => {
  const r = await req('POST', '/v1/channels', { slug, name: `Channel ${slug}`, ...extra });
  if (r.status !== 200) throw new Error(r.text);
  return r.body;
};
const defaultId = async () => (await req('GET', '/v1/channels')).body.data.find((c: { is_default: boolean }) => c.is_default).id as string;

t.test('create: the full resource, the webhook secret shown once', async (t) => {
  const r = await req('POST', '/v1/channels', {
    slug: 'web', name: 'Web shop', currencies: ['azn', 'RUB'], webhook_url: 'https://hooks.example.com/gw',
    branding: { logo_url: 'https://cdn.example.com/logo.png', primary_color: '#12abEF', return_url: 'https://shop.example.com/done', custom_title: 'Tea shop' },
  });
  t.equal(r.status, 200, r.text);
  t.match(r.body, {
    object: 'channel', slug: 'web', name: 'Web shop', status: 'active', is_default: false, livemode: false,
    branding: { logo_url: 'https://cdn.example.com/logo.png', primary_color: '#12abEF', return_url: 'https://shop.example.com/done', custom_title: 'Tea shop' },
    webhook_url: 'https://hooks.example.com/gw', currencies: ['AZN', 'RUB'], deleted_at: null,
  });
  t.match(r.body.id, /^ch_[0-9A-Za-z]{20}$/);
  t.match(r.body.uuid, /^[0-9a-f-]{36}$/);
  t.match(r.body.webhook_secret, /^whsec_/);
  const again = await req('GET', `/v1/channels/${r.body.id}`);
  t.notOk('webhook_secret' in again.body, 'not shown after creation');
  const taken = await req('POST', '/v1/channels', { slug: 'web', name: 'Another' });
  t.equal(taken.status, 409);
  t.equal(taken.body.error.code, 'CHANNEL_SLUG_TAKEN');
});

t.test('bad values are 400 VALIDATION_ERROR naming the field', async (t) => {
  const base = { slug: 'ok-slug', name: 'Ok' };
  const cases: [string, Record<string, unknown>, string][] = [
    ['upper-case slug', { ...base, slug: 'Web' }, 'slug'],
    ['leading hyphen', { ...base, slug: '-web' }, 'slug'],
    ['trailing hyphen', { ...base, slug: 'web-' }, 'slug'],
    ['underscore', { ...base, slug: 'ch_web' }, 'slug'],
    ['65 characters', { ...base, slug: 'a'.repeat(65) }, 'slug'],
    ['empty slug', { ...base, slug: '' }, 'slug'],
    ['UUID-shaped slug', { ...base, slug: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' }, 'slug'],
    ['missing slug', { name: 'x' }, 'slug'],
    ['missing name', { slug: 'x' }, 'name'],
    ['101-character name', { ...base, name: 'n'.repeat(101) }, 'name'],
    ['short colour', { ...base, branding: { primary_color: '#fff' } }, 'branding.primary_color'],
    ['named colour', { ...base, branding: { primary_color: 'red' } }, 'branding.primary_color'],
    ['non-hex colour', { ...base, branding: { primary_color: '#GGGGGG' } }, 'branding.primary_color'],
    ['http logo', { ...base, branding: { logo_url: 'http://cdn.example.com/l.png' } }, 'branding.logo_url'],
    ['local return_url', { ...base, branding: { return_url: 'https://127.0.0.1/x' } }, 'branding.return_url'],
    ['not a URL', { ...base, branding: { return_url: 'not a url' } }, 'branding.return_url'],
    ['101-character title', { ...base, branding: { custom_title: 't'.repeat(101) } }, 'branding.custom_title'],
    ['unknown branding field', { ...base, branding: { font: 'Comic Sans' } }, 'branding.font'],
    ['unknown field', { ...base, colour: '#000000' }, 'colour'],
    ['webhook to a private address', { ...base, webhook_url: 'http://10.0.0.1/hook' }, 'webhook_url'],
    ['webhook not a URL', { ...base, webhook_url: 'hooks' }, 'webhook_url'],
    ['2049-character webhook_url', { ...base, webhook_url: `https://h.example.com/${'x'.repeat(2030)}` }, 'webhook_url'],
    ['unknown currency', { ...base, currencies: ['XYZ'] }, 'currencies.0'],
    ['currency the merchant lacks', { ...base, currencies: ['AZN', 'EUR'] }, 'currencies.1'],
    ['malformed currency', { ...base, currencies: ['US'] }, 'currencies.0'],
    ['repeated currency', { ...base, currencies: ['AZN', 'AZN'] }, 'currencies'],
    ['wrong type', { ...base, name: 5 }, 'name'],
  ];
  for (const [name, body, param] of cases) {
    const r = await req('POST', '/v1/channels', body);
    t.equal(r.status, 400, `${name}: ${r.text}`);
    t.equal(r.body.error.code, 'VALIDATION_ERROR', name);
    t.equal(r.body.error.param, param, name);
    t.match(r.body.error.message, param, `${name}: the message names the field`);
  }
  const bad = await s.request('POST', '/v1/channels', { key: sk, raw: '{"slug":' });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.code, 'VALIDATION_ERROR', 'malformed JSON too');
  t.equal((await req('GET', '/v1/channels/ok-slug')).status, 404, 'nothing was created');
  const status = await s.request('GET', '/v1/channels?status=gone', { key: sk });
  t.equal(status.status, 400);
  t.equal(status.body.error.param, 'status');
});

t.test('patch: fields change, branding merges, null clears, slug rules hold', async (t) => {
  const c = await create('patchme', { branding: { primary_color: '#000000', custom_title: 'Old' }, webhook_url: 'https://h.example.com/a' });
  const r = await req('PATCH', `/v1/channels/${c.uuid}`, { name: 'Renamed', branding: { custom_title: 'New', logo_url: 'https://cdn.example.com/x.png' }, currencies: ['USD'] });
  t.equal(r.status, 200, r.text);
  t.match(r.body, { name: 'Renamed', slug: 'patchme', currencies: ['USD'], webhook_url: 'https://h.example.com/a' });
  t.same(r.body.branding, { logo_url: 'https://cdn.example.com/x.png', primary_color: '#000000', return_url: null, custom_title: 'New' });
  const cleared = await req('PATCH', `/v1/channels/patchme`, { branding: { primary_color: null }, webhook_url: null, slug: 'patched' });
  t.equal(cleared.status, 200, cleared.text);
  t.equal(cleared.body.branding.primary_color, null);
  t.equal(cleared.body.webhook_url, null);
  t.equal(cleared.body.slug, 'patched');
  t.equal((await req('GET', '/v1/channels/patchme')).status, 404, 'the old slug no longer names it');
  const before = (await req('GET', `/v1/channels/${c.id}`)).body;
  const empty = await req('PATCH', `/v1/channels/${c.id}`, {});
  t.same(empty.body, before, 'an empty patch changes nothing, not even updated_at');
  const taken = await req('PATCH', `/v1/channels/${c.id}`, { slug: 'web' });
  t.equal(taken.status, 409);
  t.equal(taken.body.error.code, 'CHANNEL_SLUG_TAKEN');
  for (const body of [{ name: '' }, { slug: 'Bad' }, { branding: { primary_color: 'blue' } }, { is_default: true }, { status: 'paused' }]) {
    const bad = await req('PATCH', `/v1/channels/${c.id}`, body);
    t.equal(bad.status, 400, JSON.stringify(body));
    t.equal(bad.body.error.code, 'VALIDATION_ERROR');
  }
});

t.test('pause, resume, soft delete, restore; the default can be neither paused nor deleted', async (t) => {
  const c = await create('life');
  const step = async (path: string, status: number, code?: string) => {
    const r = await req(path === '' ? 'DELETE' : 'POST', `/v1/channels/${c.id}${path}`);
    t.equal(r.status, status, `${path || 'DELETE'}: ${r.text}`);
    if (code) t.equal(r.body.error.code, code, path);
    return r.body;
  };
  t.equal((await step('/pause', 200)).status, 'paused');
  await step('/pause', 409, 'CHANNEL_STATUS_CONFLICT');
  await step('/promote-default', 409, 'CHANNEL_STATUS_CONFLICT');
  t.equal((await step('/resume', 200)).status, 'active');
  await step('/resume', 409, 'CHANNEL_STATUS_CONFLICT');
  await step('/restore', 409, 'CHANNEL_STATUS_CONFLICT');
  const deleted = await step('', 200);
  t.equal(deleted.status, 'deleted');
  t.ok(deleted.deleted_at);
  await step('', 409, 'CHANNEL_STATUS_CONFLICT');
  await step('/pause', 409, 'CHANNEL_STATUS_CONFLICT');
  t.equal((await req('GET', `/v1/channels/${c.id}`)).body.status, 'deleted', 'a soft-deleted channel is still readable');
  t.same((await req('GET', '/v1/channels?status=deleted')).body.data.map((x: { id: string }) => x.id), [c.id]);
  const restored = await step('/restore', 200);
  t.match(restored, { status: 'active', deleted_at: null });

  const def = await defaultId();
  for (const [method, path] of [['POST', '/pause'], ['DELETE', ''], ['DELETE', '?hard=true']]) {
    const r = await req(method, `/v1/channels/${def}${path}`);
    t.equal(r.status, 409, `default ${method} ${path}`);
  }
  t.equal((await req('POST', `/v1/channels/${def}/resume`)).body.error.code, 'CHANNEL_STATUS_CONFLICT');
  const hard = await req('DELETE', `/v1/channels/${def}?hard=true`);
  t.equal(hard.body.error.code, 'CHANNEL_IN_USE');
  t.same(hard.body.error.reasons, [{ reason: 'default_channel', count: 1 }]);
  t.equal((await req('DELETE', `/v1/channels/${def}?hard=yes`)).status, 400);
});

t.test('promote-default moves the default; parallel promotions leave exactly one', async (t) => {
  const old = await defaultId();
  const c = await create('promoted');
  const r = await req('POST', `/v1/channels/${c.slug}/promote-default`);
  t.equal(r.status, 200, r.text);
  t.equal(r.body.is_default, true);
  t.equal((await req('GET', `/v1/channels/${old}`)).body.is_default, false);
  t.equal((await req('POST', `/v1/channels/${c.id}/promote-default`)).status, 200, 'promoting the default again is a no-op');
  t.equal((await req('POST', `/v1/channels/${old}/pause`)).status, 200, 'the former default can be paused now');
  t.equal((await req('POST', `/v1/channels/${old}/resume`)).status, 200);

  const many = await Promise.all(Array.from({ length: 8 }, (_, i) => create(`race-${i}`)));
  for (let round = 0; round < 3; round++) {
    const answers = await Promise.all([...many, c].map((x) => req('POST', `/v1/channels/${x.id}/promote-default`)));
    t.same(answers.map((a) => a.status).filter((st) => st !== 200), [], 'every promotion succeeds in turn');
    const defaults = await s.db.query('SELECT id FROM channels WHERE merchant_id = $1 AND livemode = false AND is_default', [m.id]);
    t.equal(defaults.rows.length, 1, `round ${round}: exactly one default`);
    const listed = (await req('GET', '/v1/channels')).body.data.filter((x: { is_default: boolean }) => x.is_default);
    t.equal(listed.length, 1);
  }
  // Pausing and promoting the same channel at once: either order is fine, never a paused default.
  const target = many[0];
  await Promise.all([req('POST', `/v1/channels/${target.id}/pause`), req('POST', `/v1/channels/${target.id}/promote-default`)]);
  const after = (await req('GET', `/v1/channels/${target.id}`)).body;
  t.notOk(after.is_default && after.status !== 'active', `never a paused default (${after.status}, default ${after.is_default})`);
  const live = await s.request('GET', '/v1/channels', { key: (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'live' })).body.key });
  t.equal(live.body.data.filter((x: { is_default: boolean }) => x.is_default).length, 1, 'the live default is untouched');
});

t.test('hard delete: 409 with every reason and nothing deleted, then gone once free', async (t) => {
  const c = await create('busy');
  const key = await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'restricted', mode: 'test', channel_id: c.id, permissions: ['payments:write'] });
  const ws = await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'gateway', url: 'https://h.example.com/ch', channel_id: c.id });
  t.ok(ws.status < 300, ws.text);
  const pay = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100 } });
  await s.db.query('UPDATE payments SET channel_id = $1 WHERE id = $2', [c.id, pay.body.id]);

  const r = await req('DELETE', `/v1/channels/${c.id}?hard=true`);
  t.equal(r.status, 409);
  t.equal(r.body.error.code, 'CHANNEL_IN_USE');
  t.same(r.body.error.reasons, [{ reason: 'api_keys', count: 1 }, { reason: 'webhook_settings', count: 1 }, { reason: 'transactions', count: 1 }]);
  t.match(r.body.error.message, /api_keys \(1\)/);
  t.equal((await req('GET', `/v1/channels/${c.id}`)).status, 200, 'nothing deleted');

  await s.admin('DELETE', `/internal/merchants/${m.id}/api-keys/${key.body.id}`);
  await s.db.query('DELETE FROM webhook_settings WHERE channel_id = $1', [c.id]);
  const left = await req('DELETE', `/v1/channels/${c.id}?hard=true`);
  t.same(left.body.error.reasons, [{ reason: 'transactions', count: 1 }], 'a revoked key no longer blocks');
  await s.db.query('UPDATE payments SET channel_id = NULL WHERE id = $1', [pay.body.id]);
  const gone = await req('DELETE', `/v1/channels/${c.id}?hard=true`);
  t.equal(gone.status, 200, gone.text);
  t.match(gone.body, { id: c.id, deleted: true, hard: true });
  t.equal((await req('GET', `/v1/channels/${c.id}`)).status, 404);
  const revoked = await s.db.query('SELECT channel_id FROM api_keys WHERE id = $1', [key.body.id]);
  t.equal(revoked.rows[0].channel_id, null, 'the revoked key no longer names it');
  const reused = await create('busy');
  t.not(reused.id, c.id, 'the slug is free again');
});

t.test('rotate-webhook-secret: a new secret shown once; the old one keeps signing during the grace', async (t) => {
  const c = await create('rotating', { webhook_url: 'https://h.example.com/r' });
  const r = await req('POST', `/v1/channels/${c.id}/rotate-webhook-secret`, { grace_seconds: 3600 });
  t.equal(r.status, 200, r.text);
  t.match(r.body.webhook_secret, /^whsec_/);
  t.not(r.body.webhook_secret, c.webhook_secret);
  const row = await s.db.query('SELECT previous_webhook_secret, previous_secret_expires_at > now() AS grace FROM channels WHERE id = $1', [c.id]);
  t.same(row.rows[0], { previous_webhook_secret: c.webhook_secret, grace: true });
  const bad = await req('POST', `/v1/channels/${c.id}/rotate-webhook-secret`, { grace_seconds: -1 });
  t.equal(bad.status, 400);
});

t.test('resolveChannelForSession: default, any id form, and the refusals sessions answer', async (t) => {
  const merchant = (await s.admin('GET', `/internal/merchants/${m.id}`)).body;
  const principal = (channelId: string | null): Principal => ({
    key: { id: 'key_x', merchantId: m.id, kind: 'secret', mode: 'test', keyHint: '', channelId, permissions: null, label: null, createdAt: 0, revokedAt: null },
    merchant: { id: m.id, currencies: merchant.currencies } as Principal['merchant'], livemode: false,
  });
  const svc = { db: s.db, reads: new PaymentReads(s.db, { onError: (err) => t.fail(String(err)) }) } as unknown as Services;
  const def = await defaultId();
  const got = await resolveChannelForSession(svc, principal(null), undefined);
  t.equal(isFailure(got) ? got.code : got.id, def, 'the default when none is named');
  const c = await create('sessions');
  for (const ref of [c.id, c.uuid, c.slug]) {
    const x = await resolveChannelForSession(svc, principal(null), ref);
    t.equal(isFailure(x) ? x.code : x.id, c.id, ref);
  }
  const scoped = await resolveChannelForSession(svc, principal(c.id), null);
  t.equal(isFailure(scoped) ? scoped.code : scoped.id, c.id, 'a scoped key defaults to its own channel');
  const other = await resolveChannelForSession(svc, principal(c.id), def);
  t.equal(isFailure(other) && other.code, 'channel_forbidden');
  t.equal(((await resolveChannelForSession(svc, principal(null), 'nope')) as { code: string }).code, 'channel_not_found');
  await req('POST', `/v1/channels/${c.id}/pause`);
  t.equal(((await resolveChannelForSession(svc, principal(null), c.id)) as { code: string }).code, 'channel_paused');
  await req('DELETE', `/v1/channels/${c.id}`);
  t.equal(((await resolveChannelForSession(svc, principal(null), c.slug)) as { code: string }).code, 'channel_deleted');
});

t.test('default channels are read grouped and never cached: a promotion counts at the next session', async (t) => {
  const merchant = (await s.admin('GET', `/internal/merchants/${m.id}`)).body;
  const principal: Principal = {
    key: { id: 'key_y', merchantId: m.id, kind: 'secret', mode: 'test', keyHint: '', channelId: null, permissions: null, label: null, createdAt: 0, revokedAt: null },
    merchant: { id: m.id, currencies: merchant.currencies } as Principal['merchant'], livemode: false,
  };
  const names: string[] = [];
  const counting = { query: (q: { name?: string }) => { names.push(q.name ?? '?'); return s.db.query(q as never); } } as unknown as typeof s.db;
  const svc = { db: s.db, reads: new PaymentReads(counting, { onError: (err) => t.fail(String(err)) }) } as unknown as Services;
  const before = await defaultId();
  const got = await Promise.all(Array.from({ length: 5 }, () => resolveChannelForSession(svc, principal, undefined)));
  t.same(got.map((g) => (isFailure(g) ? g.code : g.id)), Array(5).fill(before), 'five sessions, the default each');
  t.same(names, ['channels_default'], 'one statement for the five');
  const c = await create('next-default');
  t.equal((await req('POST', `/v1/channels/${c.slug}/promote-default`)).status, 200);
  const after = await resolveChannelForSession(svc, principal, undefined);
  t.equal(isFailure(after) ? after.code : after.id, c.id, 'the promoted channel at once');
  t.equal((await req('POST', `/v1/channels/${before}/promote-default`)).status, 200, 'the old default back');
});

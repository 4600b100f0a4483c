// The SBP bank lists: GET /sbp/members, /sbp/members/popular, /checkout/{id}/sbp-members (RUB only),
// the limit rule, the operator's /internal/sbp/members with bad values, the cache (a change made
// behind its back stays hidden until an operator change invalidates it) and the submit-method
// whitelist reading the same table.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { newPayment } from '../helpers/checkout.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'RUB'] });

const NEW_BANK = {
  member_id: '100000000999', name: { en: 'Test Bank', ru: 'Тест Банк', az: 'Test Bank' },
  logo_url: 'https://cdn.example/test-bank.png', deeplink_ios: 'bank100000000999://qr.nspk.ru/',
  deeplink_android: 'https://qr.nspk.ru/', is_popular: true, display_order: 0,
};
const ids = (r: { body: { data: { member_id: string }[] } }) => r.body.data.map((b) => b.member_id);

t.test('GET /sbp/members: the seeded active list, {data, count}, popular first, cacheable', async (t) => {
  const r = await s.request('GET', '/sbp/members');
  t.equal(r.status, 200);
  t.equal(r.body.count, r.body.data.length);
  t.ok(r.body.count >= 20, 'a realistic set of banks');
  t.equal(r.headers.get('cache-control'), 'public, max-age=300');
  const sber = r.body.data.find((b: { member_id: string }) => b.member_id === '100000000111');
  t.same(sber, {
    member_id: '100000000111', name: { en: 'Sberbank', ru: 'Сбербанк', az: 'Sberbank' },
    logo_url: 'https://qr.nspk.ru/proxyapp/logo/bank100000000111.png', deeplink_ios: 'bank100000000111://qr.nspk.ru/',
    deeplink_android: 'bank100000000111://qr.nspk.ru/', is_popular: true, display_order: 1,
  });
  t.notOk(ids(r).includes('100000000015'), 'an inactive member (Otkritie, merged into VTB) is not listed');
  const flags = r.body.data.map((b: { is_popular: boolean }) => b.is_popular);
  t.same(flags, [...flags].sort((a: boolean, b: boolean) => Number(b) - Number(a)), 'popular banks first');
  for (const b of r.body.data) t.match(b.member_id, /^\d{12}$/);
});

t.test('GET /sbp/members/popular: popular banks by display order, default 6, limit 1-100', async (t) => {
  const r = await s.request('GET', '/sbp/members/popular');
  t.equal(r.status, 200);
  t.same(ids(r), ['100000000111', '100000000004', '110000000005', '100000000008', '100000000007', '100000000001']);
  t.equal(r.body.count, 6);
  const two = await s.request('GET', '/sbp/members/popular?limit=2');
  t.same([ids(two), two.body.count], [['100000000111', '100000000004'], 2]);
  const many = await s.request('GET', '/sbp/members/popular?limit=100');
  t.equal(many.body.count, 6, 'a limit above the number of popular banks returns them all');
});

t.test('limit: bad values are 400 VALIDATION_ERROR (reason LIMIT_INVALID) with param limit, on both endpoints that take it', async (t) => {
  const rub = await newPayment(s, m.key);
  for (const bad of ['0', '-1', '101', '1000', 'abc', '1.5', '1e1', '', ' 3', '+3', '0x10', '99999']) {
    for (const path of [`/sbp/members/popular?limit=${encodeURIComponent(bad)}`, `/checkout/${rub}/sbp-members?limit=${encodeURIComponent(bad)}`]) {
      const r = await s.request('GET', path, { headers: { 'accept-language': 'ru' } });
      t.same([r.status, r.body.error.code, r.body.error.reason, r.body.error.param], [400, 'VALIDATION_ERROR', 'LIMIT_INVALID', 'limit'], `${path}`);
      t.match(r.body.error.message, /limit/);
    }
  }
  const twice = await s.request('GET', '/sbp/members/popular?limit=2&limit=3');
  t.same([twice.status, twice.body.error.reason], [400, 'LIMIT_INVALID'], 'a repeated limit is refused');
  for (const ok of ['1', '100', '007']) {
    const r = await s.request('GET', `/sbp/members/popular?limit=${ok}`);
    t.equal(r.status, 200, ok);
  }
});

t.test('GET /checkout/{id}/sbp-members: the list for RUB, empty and currency_supported false otherwise, 404 unknown', async (t) => {
  const rub = await newPayment(s, m.key);
  const all = await s.request('GET', '/sbp/members');
  const r = await s.request('GET', `/checkout/${rub}/sbp-members`);
  t.equal(r.status, 200);
  t.same([r.body.currency_supported, r.body.count, ids(r)], [true, all.body.count, ids(all)]);
  t.equal(r.headers.get('cache-control'), 'no-store', 'per payment: never in a shared cache');
  const three = await s.request('GET', `/checkout/${rub}/sbp-members?limit=3`);
  t.same([three.body.count, ids(three)], [3, ids(all).slice(0, 3)]);
  const azn = await newPayment(s, m.key, { currency: 'AZN' });
  const none = await s.request('GET', `/checkout/${azn}/sbp-members`);
  t.same([none.status, none.body.data, none.body.count, none.body.currency_supported], [200, [], 0, false]);
  const unknown = await s.request('GET', '/checkout/pay_00000000000000000000/sbp-members');
  t.same([unknown.status, unknown.body.error.code], [404, 'PAYMENT_NOT_FOUND']);
  const junk = await s.request('GET', '/checkout/nope/sbp-members');
  t.equal(junk.status, 404);
});

t.test('operator: auth, create (201), replace (200), get, patch, delete, each seen at once by the public lists', async (t) => {
  t.equal((await s.request('GET', '/internal/sbp/members')).status, 401, 'the operator token is required');
  t.equal((await s.request('POST', '/internal/sbp/members', { body: NEW_BANK, key: 'wrong' })).status, 401);
  await s.request('GET', '/sbp/members/popular'); // warm the cache

  const created = await s.admin('POST', '/internal/sbp/members', NEW_BANK);
  t.equal(created.status, 201, created.text);
  t.match(created.body, { ...NEW_BANK, active: true, cache_invalidated: true, created_at: String, updated_at: String });
  let pop = await s.request('GET', '/sbp/members/popular');
  t.equal(ids(pop)[0], '100000000999', 'the new popular bank (display_order 0) leads the popular list at once');

  const replaced = await s.admin('POST', '/internal/sbp/members', { ...NEW_BANK, name: { en: 'Renamed', ru: 'Переименован', az: 'Adı dəyişdi' }, is_popular: false });
  t.equal(replaced.status, 200, 'the same member_id again replaces');
  t.same([replaced.body.name.en, replaced.body.is_popular, replaced.body.logo_url], ['Renamed', false, NEW_BANK.logo_url]);
  pop = await s.request('GET', '/sbp/members/popular');
  t.notOk(ids(pop).includes('100000000999'));

  const one = await s.admin('GET', '/internal/sbp/members/100000000999');
  t.same([one.status, one.body.name.ru], [200, 'Переименован']);

  const patched = await s.admin('PATCH', '/internal/sbp/members/100000000999', { name: { az: 'Yeni ad' }, display_order: 7 });
  t.equal(patched.status, 200, patched.text);
  t.same([patched.body.name, patched.body.display_order], [{ en: 'Renamed', ru: 'Переименован', az: 'Yeni ad' }, 7], 'a partial name keeps the others');
  let all = await s.request('GET', '/sbp/members');
  t.equal(all.body.data.find((b: { member_id: string }) => b.member_id === '100000000999').name.az, 'Yeni ad');

  const off = await s.admin('PATCH', '/internal/sbp/members/100000000999', { active: false });
  t.equal(off.body.active, false);
  all = await s.request('GET', '/sbp/members');
  t.notOk(ids(all).includes('100000000999'), 'an inactive member leaves the lists');
  const listed = await s.admin('GET', '/internal/sbp/members');
  t.ok(listed.body.data.some((b: { member_id: string; active: boolean }) => b.member_id === '100000000999' && !b.active), 'the operator list still shows it');

  const del = await s.admin('DELETE', '/internal/sbp/members/100000000999');
  t.same([del.status, del.body.deleted, del.body.cache_invalidated], [200, true, true]);
  t.same([(await s.admin('GET', '/internal/sbp/members/100000000999')).status, (await s.admin('DELETE', '/internal/sbp/members/100000000999')).status], [404, 404]);
  const missing = await s.admin('PATCH', '/internal/sbp/members/100000000998', { is_popular: true });
  t.same([missing.status, missing.body.error.code], [404, 'sbp_member_not_found']);
});

t.test('operator: bad values are refused with their code and param, and nothing is stored', async (t) => {
  const cases: [unknown, string, string | null][] = [
    [{ ...NEW_BANK, member_id: '12345' }, 'sbp_member_id_invalid', 'member_id'],
    [{ ...NEW_BANK, member_id: '1000000009990' }, 'sbp_member_id_invalid', 'member_id'],
    [{ ...NEW_BANK, member_id: '10000000099a' }, 'sbp_member_id_invalid', 'member_id'],
    [{ ...NEW_BANK, member_id: 100000000999 }, 'sbp_member_id_invalid', 'member_id'],
    [{ ...NEW_BANK, name: { en: 'A', ru: 'Б' } }, 'parameter_missing', 'name.az'],
    [{ ...NEW_BANK, name: { en: '', ru: 'Б', az: 'C' } }, 'parameter_invalid', 'name.en'],
    [{ ...NEW_BANK, name: { en: '   ', ru: 'Б', az: 'C' } }, 'parameter_invalid', 'name.en'],
    [{ ...NEW_BANK, name: { en: 'A', ru: 'x'.repeat(101), az: 'C' } }, 'parameter_invalid', 'name.ru'],
    [{ ...NEW_BANK, name: { en: 'A', ru: 'Б', az: 'line\nbreak' } }, 'parameter_invalid', 'name.az'],
    [{ ...NEW_BANK, name: { en: 'A', ru: 'Б', az: 'C', fr: 'D' } }, 'parameter_unknown', 'name.fr'],
    [{ ...NEW_BANK, logo_url: 'http://cdn.example/logo.png' }, 'parameter_invalid', 'logo_url'],
    [{ ...NEW_BANK, logo_url: 'not a url' }, 'parameter_invalid', 'logo_url'],
    [{ ...NEW_BANK, logo_url: 'https://user:pw@cdn.example/l.png' }, 'parameter_invalid', 'logo_url'],
    [{ ...NEW_BANK, logo_url: `https://cdn.example/${'a'.repeat(2048)}` }, 'parameter_invalid', 'logo_url'],
    [{ ...NEW_BANK, deeplink_ios: 'javascript://alert(1)' }, 'parameter_invalid', 'deeplink_ios'],
    [{ ...NEW_BANK, deeplink_ios: 'javascript:alert(1)' }, 'parameter_invalid', 'deeplink_ios'],
    [{ ...NEW_BANK, deeplink_android: 'data://text/html,x' }, 'parameter_invalid', 'deeplink_android'],
    [{ ...NEW_BANK, deeplink_android: 'bank1 ://x' }, 'parameter_invalid', 'deeplink_android'],
    [{ ...NEW_BANK, deeplink_android: 'http://qr.nspk.ru/' }, 'parameter_invalid', 'deeplink_android'],
    [{ ...NEW_BANK, is_popular: 'yes' }, 'parameter_invalid', 'is_popular'],
    [{ ...NEW_BANK, display_order: -1 }, 'parameter_invalid', 'display_order'],
    [{ ...NEW_BANK, display_order: 100001 }, 'parameter_invalid', 'display_order'],
    [{ ...NEW_BANK, display_order: 1.5 }, 'parameter_invalid', 'display_order'],
    [{ ...NEW_BANK, colour: 'red' }, 'parameter_unknown', 'colour'],
    [{ name: NEW_BANK.name }, 'parameter_missing', 'member_id'],
  ];
  for (const [body, code, param] of cases) {
    const r = await s.admin('POST', '/internal/sbp/members', body);
    t.same([r.status, r.body.error?.code, r.body.error?.param], [422, code, param], JSON.stringify(body).slice(0, 120));
  }
  t.equal((await s.admin('GET', '/internal/sbp/members/100000000999')).status, 404, 'nothing was stored');
  const patchCases: [string, unknown, string, string | null][] = [
    ['100000000111', {}, 'parameter_missing', null],
    ['100000000111', { name: {} }, 'parameter_invalid', 'name'],
    ['100000000111', { member_id: '100000000112' }, 'parameter_unknown', 'member_id'],
    ['100000000111', { deeplink_ios: 'vbscript://x' }, 'parameter_invalid', 'deeplink_ios'],
    ['100000000111', { active: 1 }, 'parameter_invalid', 'active'],
    ['12345', { active: true }, 'sbp_member_id_invalid', 'member_id'],
  ];
  for (const [id, body, code, param] of patchCases) {
    const r = await s.admin('PATCH', `/internal/sbp/members/${id}`, body);
    t.same([r.status, r.body.error?.code, r.body.error?.param], [422, code, param], `PATCH ${id} ${JSON.stringify(body)}`);
  }
  t.same((await s.admin('GET', '/internal/sbp/members/100000000111')).body.name.en, 'Sberbank', 'unchanged');
  t.equal((await s.admin('DELETE', '/internal/sbp/members/abc')).body.error.code, 'sbp_member_id_invalid');
});

t.test('the lists are cached: a change behind the operator API stays hidden until an operator change invalidates', async (t) => {
  const before = await s.request('GET', '/sbp/members/popular');
  t.equal(ids(before)[0], '100000000111');
  await s.db.query("UPDATE sbp_members SET display_order = 0, name_en = 'Changed directly' WHERE member_id = '100000000004'");
  t.teardown(() => s.db.query("UPDATE sbp_members SET display_order = 2, name_en = 'T-Bank' WHERE member_id = '100000000004'"));
  const cached = await s.request('GET', '/sbp/members/popular');
  t.same(ids(cached), ids(before), 'served from the cache (300 s), not from Postgres');
  const touch = await s.admin('PATCH', '/internal/sbp/members/100000000008', { display_order: 4 });
  t.equal(touch.body.cache_invalidated, true);
  const fresh = await s.request('GET', '/sbp/members/popular');
  t.equal(ids(fresh)[0], '100000000004', 'the invalidated list is read again from Postgres');
  t.equal(fresh.body.data[0].name.en, 'Changed directly');
});

t.test('submit-method checks the member against the same table: added, deactivated, deleted', async (t) => {
  const submit = (id: string, member: string) => s.request('POST', `/checkout/${id}/submit-method`, { body: { method_code: 'sbp', payload: { extra: { memberId: member } } } });
  const a = await newPayment(s, m.key);
  t.equal((await submit(a, '100000000998')).body.error.reason, 'SBP_MEMBER_UNKNOWN', 'not yet a member');
  t.equal((await s.admin('POST', '/internal/sbp/members', { ...NEW_BANK, member_id: '100000000998' })).status, 201);
  const ok = await submit(a, '100000000998');
  t.same([ok.status, ok.body.next_action?.type], [200, 'show_qr'], ok.text);
  await s.admin('PATCH', '/internal/sbp/members/100000000998', { active: false });
  const b = await newPayment(s, m.key);
  t.equal((await submit(b, '100000000998')).body.error.reason, 'SBP_MEMBER_UNKNOWN', 'an inactive member is refused');
  t.equal((await submit(b, '100000000015')).body.error.reason, 'SBP_MEMBER_UNKNOWN', 'a seeded inactive member is refused');
  await s.admin('DELETE', '/internal/sbp/members/100000000998');
  t.equal((await submit(b, '100000000998')).body.error.reason, 'SBP_MEMBER_UNKNOWN');
  const sber = await submit(b, '110000000005');
  t.equal(sber.status, 200, 'a seeded active member is accepted');
});

t.test('the public lists share the public rate limit per client address (PUBLIC_PREFIXES)', async (t) => {
  const p = await startTestServer(t, { PUBLIC_RATE_LIMIT_PER_MINUTE: '3', CLIENT_IP_HEADER: 'X-Client-IP' });
  const from = { headers: { 'x-client-ip': '10.1.0.1' } };
  const answers = [];
  // The checkout list counts before its payment is looked up (an unknown id is 404 after the count).
  for (const path of ['/sbp/members', '/sbp/members/popular', '/checkout/pay_00000000000000000000/sbp-members', '/sbp/members/popular']) answers.push(await p.request('GET', path, from));
  t.same(answers.map((r) => r.status), [200, 200, 404, 429]);
  t.equal(answers[3].body.error.code, 'RATE_LIMITED');
  t.ok(Number(answers[3].headers.get('retry-after')) >= 1);
  t.equal((await p.request('GET', '/sbp/members/popular', { headers: { 'x-client-ip': '10.1.0.2' } })).status, 200, 'another address is not affected');
});

t.test('OpenAPI covers the public lists at the service root, with the member record and the limit rule', async (t) => {
  const doc = (await s.request('GET', '/openapi.json')).body;
  for (const p of ['/sbp/members', '/sbp/members/popular', '/checkout/{sessionId}/sbp-members']) {
    t.ok(doc.paths[p]?.get, p);
    t.equal(doc.paths[p].servers?.[0]?.url, '{base_url}', 'served from the root, not /api/v2');
    t.equal(doc.paths[p].servers[0].variables.base_url.default, s.srv.services.config.publicBaseUrl);
    t.same(doc.paths[p].get.security, [], `${p} is public`);
  }
  t.same(doc.paths['/sbp/members/popular'].get.parameters[0].schema, { type: 'integer', minimum: 1, maximum: 100, default: 6 });
  t.same(doc.components.schemas.SbpMember.required,
    ['member_id', 'name', 'logo_url', 'deeplink_ios', 'deeplink_android', 'is_popular', 'display_order']);
  t.ok(doc.components.schemas.CheckoutSbpMemberList.required.includes('currency_supported'));
});

t.test('a corrupt cache entry is read again from Postgres and replaced', async (t) => {
  const kv = s.srv.services.kv;
  const gen = (await kv.get('sbp:members:gen')) ?? '0';
  for (const junk of ['not json', '{"data":[]}']) {
    await kv.set(`sbp:members:list:${gen}`, junk, 60_000);
    const r = await s.request('GET', '/sbp/members');
    t.ok(r.body.count >= 20, `${junk}: the full list`);
    t.equal(r.headers.get('cache-control'), 'public, max-age=300');
    t.ok(Array.isArray(JSON.parse((await kv.get(`sbp:members:list:${gen}`))!)), 'the entry is a list again');
  }
});

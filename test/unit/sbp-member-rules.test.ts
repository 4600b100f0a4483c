// The pure rules of SBP member records and of the lists' limit parameter (src/domain/sbp-member.ts).
import t from 'tap';
import { deeplinkProblem, logoUrlProblem, nameProblem, parseListLimit, popularOf, type SbpMember } from '../../src/domain/sbp-member.js';

t.test('limit: absent, valid 1-100, or invalid', async (t) => {
  t.equal(parseListLimit([]), undefined);
  for (const [v, n] of [['1', 1], ['100', 100], ['007', 7]] as const) t.equal(parseListLimit([v]), n, v);
  for (const v of ['0', '101', '-1', '+1', '1.0', '1e2', '', ' 1', 'abc', '00000001', '0x1']) t.equal(parseListLimit([v]), null, JSON.stringify(v));
  t.equal(parseListLimit(['1', '2']), null, 'repeated');
});

t.test('names: non-blank, at most 100, no control characters', async (t) => {
  t.equal(nameProblem('Сбербанк'), null);
  t.equal(nameProblem('Poçta Bank'), null);
  // Names are escaped: a raw U+2028 in a test name would break the TAP stream.
  const shown = (v: string) => v.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  for (const v of ['', '  ', 'a'.repeat(101), 'a\u0000b', 'tab\there', 'x\u2028y']) t.type(nameProblem(v), 'string', shown(v));
});

t.test('logo URLs: empty or https with a host, no credentials', async (t) => {
  for (const v of ['', 'https://qr.nspk.ru/proxyapp/logo/bank100000000111.png']) t.equal(logoUrlProblem(v), null, v);
  for (const v of ['http://a.example/x.png', 'ftp://a.example/x', 'https://', 'javascript:alert(1)', 'https://u:p@a.example/x', '/relative.png', `https://a.example/${'x'.repeat(2048)}`]) {
    t.type(logoUrlProblem(v), 'string', v.slice(0, 60));
  }
});

t.test('deeplinks: empty, an app scheme or https; never a script-capable, local or plain-http scheme', async (t) => {
  for (const v of ['', 'bank100000000111://qr.nspk.ru/', 'sberpay://pay', 'https://qr.nspk.ru/', 'tinkoffbank://Main/PayByQR']) t.equal(deeplinkProblem(v), null, v);
  for (const v of ['javascript://x', 'JavaScript://x', 'javascript:alert(1)', 'data://x', 'vbscript://x', 'file:///etc/passwd', 'http://qr.nspk.ru/',
    'bank 1://x', 'bank1://a b', 'bank1://x\u0000', '://x', 'qr.nspk.ru/x', `bank1://${'x'.repeat(2048)}`]) {
    t.type(deeplinkProblem(v), 'string', JSON.stringify(v).slice(0, 60));
  }
});

t.test('popular: only popular members, by display order then member id, at most limit', async (t) => {
  const m = (member_id: string, is_popular: boolean, display_order: number): SbpMember =>
    ({ member_id, name: { en: member_id, ru: member_id, az: member_id }, logo_url: '', deeplink_ios: '', deeplink_android: '', is_popular, display_order });
  const list = [m('100000000003', true, 5), m('100000000002', false, 0), m('100000000001', true, 5), m('100000000004', true, 1)];
  t.same(popularOf(list, 10).map((x) => x.member_id), ['100000000004', '100000000001', '100000000003']);
  t.same(popularOf(list, 1).map((x) => x.member_id), ['100000000004']);
});

import t from 'tap';
import {
  checkTargetUrl, classifyIp, isAllowedAddress, isPublicHttpsUrl, parseIpLiteral, type AddressClass,
} from '../../src/domain/address.js';

const strict = { requireHttps: true, allowPrivate: false };
const lenient = { requireHttps: false, allowPrivate: true };
const ruleOf = (raw: string, opts = strict): string => {
  const r = checkTargetUrl(raw, opts);
  return r.ok ? 'ok' : r.rule;
};

t.test('parseIpLiteral reads every spelling of 127.0.0.1', async (t) => {
  const loop = [127, 0, 0, 1];
  const cases: [string, number[]][] = [
    ['127.0.0.1', loop], ['2130706433', loop], ['0x7f000001', loop], ['0X7F000001', loop],
    ['0x7f.0.0.1', loop], ['0177.0.0.1', loop], ['127.1', loop], ['127.0.1', loop], ['127.0.0.1.', loop],
  ];
  for (const [host, bytes] of cases) t.same(parseIpLiteral(host), { family: 4, bytes }, host);
});

t.test('parseIpLiteral reads IPv6 with brackets, zones, embedded v4 and uppercase', async (t) => {
  const one = [...new Array<number>(15).fill(0), 1];
  const mapped = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1];
  const cases: [string, number[]][] = [
    ['::1', one], ['[::1]', one], ['0:0:0:0:0:0:0:1', one],
    ['::ffff:127.0.0.1', mapped], ['::ffff:7f00:1', mapped], ['::FFFF:7F00:1', mapped],
    ['[0:0:0:0:0:ffff:127.0.0.1]', mapped],
    ['fe80::1%eth0', [0xfe, 0x80, ...new Array<number>(13).fill(0), 1]],
    ['[fe80::1%25eth0]', [0xfe, 0x80, ...new Array<number>(13).fill(0), 1]],
  ];
  for (const [host, bytes] of cases) t.same(parseIpLiteral(host), { family: 6, bytes }, host);
});

t.test('parseIpLiteral returns null for names and broken literals', async (t) => {
  for (const host of [
    'example.com', '1.2.3.4.example.com', 'localhost', '0x7f.example', '', '1.2.3.4.5', '256.0.0.1',
    '4294967296', '08.0.0.1', '[127.0.0.1]', ':::1', '1::2::3', '1:2:3:4:5:6:7:8:9', '::ffff:127.1', '12345::',
  ]) t.equal(parseIpLiteral(host), null, JSON.stringify(host));
});

t.test('classifyIp', async (t) => {
  const cases: [string, AddressClass | null][] = [
    ['127.0.0.1', 'loopback'], ['127.255.255.254', 'loopback'], ['::1', 'loopback'],
    ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'],
    ['172.32.0.1', 'public'], ['169.254.1.1', 'link_local'], ['fe80::1', 'link_local'], ['febf::1', 'link_local'],
    ['169.254.169.254', 'metadata'], ['2852039166', 'metadata'], ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'], ['::ffff:169.254.169.254', 'metadata'],
    ['100.64.0.1', 'cgnat'], ['100.127.255.255', 'cgnat'], ['100.128.0.1', 'public'],
    ['fc00::1', 'ula'], ['fd12:3456::1', 'ula'],
    ['0.0.0.0', 'unspecified'], ['0', 'unspecified'], ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'], ['239.255.255.250', 'multicast'], ['ff02::1', 'multicast'],
    ['192.0.2.1', 'documentation'], ['198.51.100.7', 'documentation'], ['203.0.113.9', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['240.0.0.1', 'reserved'], ['255.255.255.255', 'reserved'], ['198.18.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'], ['100::1', 'reserved'], ['2001::1', 'reserved'], ['4000::1', 'reserved'],
    ['::ffff:10.0.0.1', 'private'], ['::10.0.0.1', 'private'], ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::8.8.8.8', 'public'], ['2002:7f00:1::', 'loopback'], ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:808:808::1', 'public'],
    ['8.8.8.8', 'public'], ['1.1.1.1', 'public'], ['2606:4700:4700::1111', 'public'],
    ['example.com', null],
  ];
  for (const [host, cls] of cases) t.equal(classifyIp(host), cls, host);
});

const loopbackSpellings = [
  '127.0.0.1', '2130706433', '0x7f000001', '0x7f.0.0.1', '0177.0.0.1', '127.1', '127.0.1',
  '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:127.0.0.1]', '[::127.0.0.1]',
];
const refusedByDefault = [
  ...loopbackSpellings,
  '10.0.0.1', '172.16.5.4', '192.168.0.10', '0xc0a80001', '[::ffff:192.168.0.1]', // private
  '169.254.10.10', '[fe80::1]', // link-local
  '100.64.1.1', // CGNAT
  '[fd00::1]', '[fc00::abcd]', // ULA
  '0.0.0.0', '0', '[::]', // unspecified
  '169.254.169.254', '[fd00:ec2::254]', '2852039166', '0xa9fea9fe', '100.100.100.200', // metadata
  '224.0.0.1', '[ff02::1]', '240.0.0.1', '255.255.255.255', '192.0.2.1', '[2001:db8::1]',
];

t.test('checkTargetUrl refuses non-public addresses in every spelling', async (t) => {
  for (const host of refusedByDefault) {
    t.equal(ruleOf(`https://${host}/hook`), 'address_not_allowed', host);
    t.equal(ruleOf(`https://${host}:8443/hook`), 'address_not_allowed', `${host} with port`);
  }
});

t.test('allowPrivate admits loopback, private, CGNAT and ULA only', async (t) => {
  for (const host of [...loopbackSpellings, '10.0.0.1', '192.168.0.10', '100.64.1.1', '[fd00::1]']) {
    t.equal(ruleOf(`http://${host}/hook`, lenient), 'ok', host);
  }
  for (const host of [
    '169.254.10.10', '[fe80::1]', '169.254.169.254', '2852039166', '[fd00:ec2::254]', '100.100.100.200',
    '0.0.0.0', '[::]', '224.0.0.1', '240.0.0.1', '192.0.2.1',
  ]) t.equal(ruleOf(`http://${host}/hook`, lenient), 'address_not_allowed', host);
});

t.test('isAllowedAddress applies the same class rule to resolved addresses', async (t) => {
  t.ok(isAllowedAddress('93.184.216.34', false));
  t.ok(isAllowedAddress('2606:4700:4700::1111', false));
  t.notOk(isAllowedAddress('127.0.0.1', false));
  t.ok(isAllowedAddress('127.0.0.1', true));
  t.ok(isAllowedAddress('::ffff:10.0.0.1', true));
  t.notOk(isAllowedAddress('::ffff:10.0.0.1', false));
  t.notOk(isAllowedAddress('169.254.169.254', true));
  t.notOk(isAllowedAddress('fe80::1%eth0', true));
  t.notOk(isAllowedAddress('example.com', true), 'a name is not an address');
});

t.test('public addresses and DNS names pass', async (t) => {
  for (const raw of [
    'https://example.com/webhooks', 'https://api.merchant.example:8443/a?b=c#d', 'https://8.8.8.8/',
    'https://[2606:4700:4700::1111]/', 'https://1.2.3.4.nip.example/', 'https://EXAMPLE.COM/',
  ]) t.equal(ruleOf(raw), 'ok', raw);
  t.ok(isPublicHttpsUrl('https://example.com/'));
  t.notOk(isPublicHttpsUrl('http://example.com/'));
  t.notOk(isPublicHttpsUrl('https://127.0.0.1/'));

  const named = checkTargetUrl('https://Example.com/x', strict);
  t.ok(named.ok && named.host === 'example.com' && named.ip === null, 'name has no ip');
  const v4 = checkTargetUrl('https://8.8.8.8/x', strict);
  t.ok(v4.ok && v4.ip === '8.8.8.8', 'v4 literal reported');
  const v6 = checkTargetUrl('https://[2606:4700:4700::1111]/x', strict);
  t.ok(v6.ok && v6.ip === '2606:4700:4700::1111', 'v6 literal reported without brackets');
});

t.test('local and internal names', async (t) => {
  for (const host of ['localhost', 'LOCALHOST', 'localhost.', 'api.localhost', 'localhost.localdomain']) {
    t.equal(ruleOf(`https://${host}/`), 'host_not_allowed', host);
    t.equal(ruleOf(`http://${host}/`, lenient), 'ok', `${host} with allowPrivate`);
  }
  for (const host of ['printer.local', 'metadata.google.internal', 'svc.internal.']) {
    t.equal(ruleOf(`https://${host}/`), 'host_not_allowed', host);
    t.equal(ruleOf(`http://${host}/`, lenient), 'host_not_allowed', `${host} with allowPrivate`);
  }
});

t.test('scheme, https, credentials and shape rules', async (t) => {
  const cases: [string, string, typeof strict][] = [
    ['ftp://example.com/', 'scheme_not_allowed', strict],
    ['file:///etc/passwd', 'scheme_not_allowed', lenient],
    ['javascript:alert(1)', 'scheme_not_allowed', lenient],
    ['gopher://example.com/', 'scheme_not_allowed', lenient],
    ['http://example.com/', 'https_required', strict],
    ['http://example.com/', 'ok', { requireHttps: false, allowPrivate: false }],
    ['https://user:pass@example.com/', 'credentials_not_allowed', strict],
    ['https://user@example.com/', 'credentials_not_allowed', strict],
    ['https://:pass@example.com/', 'credentials_not_allowed', strict],
    ['not a url', 'url_malformed', strict],
    ['/relative/path', 'url_malformed', strict],
    ['https://exa\tmple.com/', 'url_malformed', strict],
    ['https://example.com\\@127.0.0.1/', 'url_malformed', strict],
    ['https://[fe80::1%25eth0]/', 'url_malformed', strict],
    ['https://999.0.0.1/', 'url_malformed', strict],
    [`https://example.com/${'a'.repeat(2048)}`, 'url_malformed', strict],
    [`https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`, 'ok', strict],
  ];
  for (const [raw, rule, opts] of cases) t.equal(ruleOf(raw, opts), rule, raw.slice(0, 60));
});

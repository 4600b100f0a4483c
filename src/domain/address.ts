// Outbound target checks (webhooks, redirects): which hosts the engine may be asked to reach.
// Pure: the URL check runs when a merchant saves a URL, isAllowedAddress again after DNS at connect
// time, because a public name can resolve to a private address (or change to one later).

export type AddressClass =
  | 'public' | 'loopback' | 'private' | 'link_local' | 'cgnat' | 'ula' | 'unspecified'
  | 'multicast' | 'metadata' | 'reserved' | 'documentation';

export type UrlCheck =
  | { ok: true; url: URL; host: string; ip: string | null }
  | {
      ok: false;
      rule: 'url_malformed' | 'scheme_not_allowed' | 'https_required' | 'credentials_not_allowed'
        | 'host_not_allowed' | 'address_not_allowed';
      detail: string;
      /** Refused only because the host is local or private: allowed with WEBHOOK_ALLOW_PRIVATE. */
      privateOk?: boolean;
    };

/**
 * Which non-public addresses may be reached: none (false), loopback only ('loopback': test-mode
 * webhooks on the embedded default, to the developer's own machine), or loopback and private (true).
 */
export type PrivateReach = boolean | 'loopback';

type IpLiteral = { family: 4 | 6; bytes: number[] };

const MAX_URL_LENGTH = 2048;

// Classes that are merely "not on the internet": fine for a merchant testing against a local
// server when allowPrivate is on. Link-local, metadata and the rest stay refused in every mode.
const PRIVATE_OK: ReadonlySet<AddressClass> = new Set(['loopback', 'private', 'cgnat', 'ula']);

const allowedClass = (c: AddressClass, allowPrivate: PrivateReach): boolean =>
  c === 'public' || (allowPrivate === true && PRIVATE_OK.has(c)) || (allowPrivate === 'loopback' && c === 'loopback');

// Each IPv4 part the way inet_aton and WHATWG read it: 0x.. hex, a leading 0 octal, else decimal.
function v4Part(p: string): number | null {
  if (/^0x[0-9a-f]*$/i.test(p)) return p.length === 2 ? 0 : parseInt(p.slice(2), 16);
  if (/^0[0-7]*$/.test(p)) return parseInt(p, 8);
  if (/^[1-9][0-9]*$/.test(p)) return parseInt(p, 10);
  return null;
}

// Accepts 1 to 4 parts (127.1 means 127.0.0.1, 2130706433 is one 32-bit part); the last part
// fills the remaining bytes. One trailing dot is allowed, as WHATWG allows it.
function parseV4(s: string): number[] | null {
  const parts = s.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return null;
  const nums: number[] = [];
  for (const p of parts) {
    const n = v4Part(p);
    if (n === null) return null;
    nums.push(n);
  }
  const last = nums.pop() as number;
  if (nums.some((n) => n > 255) || last >= 256 ** (4 - nums.length)) return null;
  const bytes = [...nums];
  for (let i = 3 - nums.length; i >= 0; i--) bytes.push(Math.floor(last / 256 ** i) % 256);
  return bytes;
}

// The dotted tail of an IPv6 address must be a plain dotted quad; no short or hex forms there.
function strictV4(s: string): number[] | null {
  const parts = s.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^[0-9]{1,3}$/.test(p))) return null;
  const bytes = parts.map(Number);
  return bytes.every((b) => b <= 255) ? bytes : null;
}

function v6Groups(s: string, lastMayBeV4: boolean): number[] | null {
  if (s === '') return [];
  const groups: number[] = [];
  const parts = s.split(':');
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (lastMayBeV4 && i === parts.length - 1 && p.includes('.')) {
      const v4 = strictV4(p);
      if (!v4) return null;
      groups.push(v4[0] * 256 + v4[1], v4[2] * 256 + v4[3]);
    } else if (/^[0-9a-f]{1,4}$/.test(p)) {
      groups.push(parseInt(p, 16));
    } else {
      return null;
    }
  }
  return groups;
}

function parseV6(input: string): number[] | null {
  const s = input.toLowerCase();
  if (!/^[0-9a-f:.]+$/.test(s)) return null;
  const gap = s.indexOf('::');
  if (gap !== s.lastIndexOf('::')) return null;
  let groups: number[] | null;
  if (gap < 0) {
    groups = v6Groups(s, true);
    if (!groups || groups.length !== 8) return null;
  } else {
    const head = v6Groups(s.slice(0, gap), false);
    const tail = v6Groups(s.slice(gap + 2), true);
    if (!head || !tail || head.length + tail.length > 7) return null;
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

export function parseIpLiteral(host: string): IpLiteral | null {
  let h = host;
  const bracketed = h.startsWith('[') && h.endsWith(']');
  if (bracketed) h = h.slice(1, -1);
  if (h.includes(':')) {
    // A zone id (fe80::1%eth0) picks an interface; it does not change which address is meant.
    const zone = h.indexOf('%');
    if (zone >= 0) h = h.slice(0, zone);
    const bytes = parseV6(h);
    return bytes ? { family: 6, bytes } : null;
  }
  if (bracketed) return null;
  const bytes = parseV4(h);
  return bytes ? { family: 4, bytes } : null;
}

type Range = { bytes: number[]; bits: number; cls: AddressClass };

function range(cidr: string, cls: AddressClass): Range {
  const [addr, bits] = cidr.split('/');
  const ip = parseIpLiteral(addr);
  if (!ip) throw new Error(`bad range ${cidr}`);
  return { bytes: ip.bytes, bits: Number(bits), cls };
}

function inRange(bytes: number[], r: Range): boolean {
  for (let i = 0; i * 8 < r.bits; i++) {
    const take = Math.min(8, r.bits - i * 8);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[i] & mask) !== (r.bytes[i] & mask)) return false;
  }
  return true;
}

// First match wins, so single addresses sit above the blocks that contain them.
const V4_RANGES: Range[] = [
  range('169.254.169.254/32', 'metadata'), // AWS, GCP, Azure, OCI instance metadata
  range('100.100.100.200/32', 'metadata'), // Alibaba Cloud
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'cgnat'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link_local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', 'reserved'), // retired 6to4 relay anycast
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'reserved'), // benchmarking
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'), // includes 255.255.255.255
];

// Prefixes whose last four bytes (or bytes 2..5 for 6to4) are an IPv4 address that a
// translator or tunnel will actually reach, so the IPv4 rule must apply to them.
const V6_EMBEDS_V4: { r: Range; at: number }[] = [
  { r: range('::ffff:0:0/96', 'public'), at: 12 }, // IPv4-mapped
  { r: range('::/96', 'public'), at: 12 }, // IPv4-compatible (deprecated, still routed by some stacks)
  { r: range('64:ff9b::/96', 'public'), at: 12 }, // NAT64
  { r: range('2002::/16', 'public'), at: 2 }, // 6to4
];

const V6_RANGES: Range[] = [
  range('fd00:ec2::254/128', 'metadata'), // AWS IPv6 metadata
  range('fe80::/10', 'link_local'),
  range('fec0::/10', 'reserved'), // deprecated site-local
  range('fc00::/7', 'ula'),
  range('ff00::/8', 'multicast'),
  range('2001:db8::/32', 'documentation'),
  range('3fff::/20', 'documentation'),
  range('100::/64', 'reserved'), // discard-only
  range('2001::/23', 'reserved'), // IETF protocol assignments, incl. Teredo
];
const GLOBAL_UNICAST = range('2000::/3', 'public');

function classifyV4(b: number[]): AddressClass {
  return V4_RANGES.find((r) => inRange(b, r))?.cls ?? 'public';
}

function classifyV6(b: number[]): AddressClass {
  const zeroUpTo15 = b.slice(0, 15).every((x) => x === 0);
  if (zeroUpTo15 && b[15] === 0) return 'unspecified';
  if (zeroUpTo15 && b[15] === 1) return 'loopback';
  for (const { r, at } of V6_EMBEDS_V4) if (inRange(b, r)) return classifyV4(b.slice(at, at + 4));
  const hit = V6_RANGES.find((r) => inRange(b, r));
  if (hit) return hit.cls;
  // Outside 2000::/3 nothing is allocated for the public internet.
  return inRange(b, GLOBAL_UNICAST) ? 'public' : 'reserved';
}

export function classifyIp(host: string): AddressClass | null {
  const ip = parseIpLiteral(host);
  if (!ip) return null;
  return ip.family === 4 ? classifyV4(ip.bytes) : classifyV6(ip.bytes);
}

// A non-literal fails closed: this is meant for addresses that came back from DNS.
export function isAllowedAddress(ip: string, allowPrivate: PrivateReach): boolean {
  const cls = classifyIp(ip);
  return cls !== null && allowedClass(cls, allowPrivate);
}

const LOCALHOST_NAME = /^(localhost|.+\.localhost|localhost\.localdomain)$/;
const INTERNAL_NAME = /\.(local|internal)$/; // mDNS and cloud-internal zones (metadata.google.internal)

// The host as written, before WHATWG rewrites it, so a spelling WHATWG does not normalise
// (or normalises differently in another runtime) is still judged.
function rawHost(raw: string): string {
  let auth = /^[a-z][a-z0-9+.-]*:\/*([^/?#]*)/i.exec(raw)?.[1] ?? '';
  auth = auth.slice(auth.lastIndexOf('@') + 1);
  const host = auth.startsWith('[') ? auth.slice(0, auth.indexOf(']') + 1) : auth.split(':')[0];
  try { return decodeURIComponent(host).toLowerCase(); } catch { return host.toLowerCase(); }
}

const refuse = (rule: Extract<UrlCheck, { ok: false }>['rule'], detail: string, privateOk = false): UrlCheck =>
  (privateOk ? { ok: false, rule, detail, privateOk } : { ok: false, rule, detail });

export function checkTargetUrl(raw: string, opts: { requireHttps: boolean; allowPrivate: PrivateReach }): UrlCheck {
  if (raw.length > MAX_URL_LENGTH) return refuse('url_malformed', `longer than ${MAX_URL_LENGTH} characters`);
  // WHATWG silently drops tabs and newlines and treats "\" as "/"; other parsers do not, so a URL
  // that depends on either could point somewhere else downstream.
  if (/[\u0000-\u0020\u007f\\]/.test(raw)) return refuse('url_malformed', 'contains whitespace, control characters or a backslash');
  let url: URL;
  try { url = new URL(raw); } catch { return refuse('url_malformed', 'not an absolute URL'); }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refuse('scheme_not_allowed', `scheme ${url.protocol} is not http or https`);
  if (opts.requireHttps && url.protocol !== 'https:') return refuse('https_required', 'https is required');
  if (url.username !== '' || url.password !== '') return refuse('credentials_not_allowed', 'URL carries a username or password');

  const hostname = url.hostname;
  const name = hostname.replace(/\.+$/, ''); // "localhost." is still localhost
  if (name === '') return refuse('host_not_allowed', 'empty host');
  if (INTERNAL_NAME.test(name)) return refuse('host_not_allowed', `${name} is an internal name`);
  if (LOCALHOST_NAME.test(name) && !opts.allowPrivate) return refuse('host_not_allowed', `${name} is a local name`, true);

  let ip: string | null = null;
  for (const candidate of [hostname, rawHost(raw)]) {
    const cls = classifyIp(candidate);
    if (cls === null) continue;
    if (!allowedClass(cls, opts.allowPrivate)) return refuse('address_not_allowed', `${candidate} is not allowed (${cls})`, PRIVATE_OK.has(cls));
    if (candidate === hostname) ip = hostname.replace(/^\[|\]$/g, '');
  }
  return { ok: true, url, host: hostname, ip };
}

export const isPublicHttpsUrl = (raw: string): boolean =>
  checkTargetUrl(raw, { requireHttps: true, allowPrivate: false }).ok;

/** An http(s) URL on this machine (localhost, 127.0.0.0/8, ::1): a developer's own shop in test mode. */
export function isLoopbackUrl(raw: string): boolean {
  const c = checkTargetUrl(raw, { requireHttps: false, allowPrivate: 'loopback' });
  if (!c.ok) return false;
  const name = c.host.replace(/\.+$/, '');
  return LOCALHOST_NAME.test(name) || classifyIp(name) === 'loopback';
}

/**
 * Where a payer may be sent back to (return_url, success_url, cancel_url): a public https URL; in
 * test mode, when `testHttp` allows it, also http, and loopback hosts (a developer's localhost shop).
 */
export function isReturnUrlAllowed(raw: string, testHttp: boolean): boolean {
  if (isPublicHttpsUrl(raw)) return true;
  return testHttp && checkTargetUrl(raw, { requireHttps: false, allowPrivate: 'loopback' }).ok;
}

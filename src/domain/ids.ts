// Identifier formats. Pure apart from the randomness source, which callers may inject.
import { createHash, randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn in blocks: one syscall serves many ids on the hot path.
let pool = Buffer.alloc(0);
let offset = 0;
function bytes(n: number): Buffer {
  if (offset + n > pool.length) { pool = randomBytes(Math.max(4096, n)); offset = 0; }
  const out = pool.subarray(offset, offset + n);
  offset += n;
  return out;
}

export function randomString(alphabet: string, length: number): string {
  // Rejection sampling keeps every character equally likely.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const buf = bytes(length * 2);
    for (let i = 0; i < buf.length && out.length < length; i++) {
      if (buf[i] < limit) out += alphabet[buf[i] % alphabet.length];
    }
  }
  return out;
}

export const PAYMENT_ID_RE = /^EXZ-\d{8}-[0-9A-HJKMNP-TV-Z]{10}$/;

export function paymentId(now: number): string {
  const d = new Date(now);
  const date = `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}`;
  return `EXZ-${date}-${randomString(CROCKFORD, 10)}`;
}

/** A gateway checkout session id: cs_ and 24 base62 characters. */
export const SESSION_ID_RE = /^cs_[0-9A-Za-z]{24}$/;
export const sessionId = (): string => prefixedId('cs', 24);
/** An id the hosted checkout and its public endpoints answer to: a merchant API payment's or a gateway session's. */
export const isCheckoutId = (id: string): boolean => PAYMENT_ID_RE.test(id) || SESSION_ID_RE.test(id);

export const prefixedId = (prefix: string, length = 20): string => `${prefix}_${randomString(BASE62, length)}`;
/** A payment link id: lnk_ and 20 base62 characters. */
export const LINK_ID_RE = /^lnk_[0-9A-Za-z]{20}$/;
export const merchantId = (): string => prefixedId('mer', 16);
export const apiKeyId = (): string => prefixedId('key', 16);
export const eventId = (): string => prefixedId('evt', 24);

const processTag = randomString(BASE62, 8);
let requestCounter = 0;
/** Unique per process and start; cheap enough for every request. */
export function requestId(): string {
  requestCounter = (requestCounter + 1) % 0x7fffffff;
  return `req_${processTag}${requestCounter.toString(36).padStart(6, '0')}`;
}

/** 32 base62 characters after the kind prefix: about 190 bits. */
export function apiKeySecret(prefix: string): string {
  return `${prefix}${randomString(BASE62, 32)}`;
}

/** What is stored of an API key: its SHA-256, hex. */
export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** Stable 32-bit hash (FNV-1a) used to place an aggregate id on a shard. */
export function shardOf(id: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

// Webhook signatures of both APIs, and the verification helper merchants use.
//
// Merchant API:  X-Svc-Signature: t=<unix>,v1=<hex>[,v1=<hex>]
//                v1 = HMAC-SHA256(secret, "<t>.<raw body>") — one v1 per active secret (rotation).
// Gateway API:   X-Svc-Timestamp: <unix>   X-Svc-Signature: sha256=<hex>[,sha256=<hex>]
//                sha256 = HMAC-SHA256(secret, "<timestamp>.<raw body>") — the timestamp is signed so
//                a receiver can reject replays; one entry per active secret.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const DEFAULT_TOLERANCE_SECONDS = 300;

export const hmacHex = (secret: string, timestamp: number, body: string | Buffer): string =>
  createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');

export function merchantSignatureHeader(secrets: string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${hmacHex(s, timestamp, body)}`)].join(',');
}

export function gatewaySignatureHeader(secrets: string[], timestamp: number, body: string): string {
  return secrets.map((s) => `sha256=${hmacHex(s, timestamp, body)}`).join(',');
}

export type VerificationFailure = 'header_missing' | 'header_malformed' | 'timestamp_out_of_tolerance' | 'signature_mismatch';

/** The typed error of verifyWebhook; `reason` is stable, `message` is for people. */
export class WebhookVerificationError extends Error {
  constructor(readonly reason: VerificationFailure, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyOptions { tolerance?: number; now?: () => number }

function parseHeader(header: string): { t: number; v1: string[] } | null {
  let t = NaN;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't') t = /^\d{1,12}$/.test(v) ? Number(v) : NaN;
    else if (k === 'v1' && /^[0-9a-f]{64}$/.test(v)) v1.push(v);
  }
  return Number.isFinite(t) && v1.length > 0 ? { t, v1 } : null;
}

/**
 * Verifies a merchant API webhook: the raw body bytes exactly as received, the X-Svc-Signature
 * header, and the endpoint's secret. Compares in constant time; rejects timestamps more than
 * `tolerance` seconds (default 300) away from now, in either direction. Returns the parsed event.
 */
export function verifyWebhook(rawBody: string | Buffer, header: string | undefined | null, secret: string, opts: VerifyOptions = {}): unknown {
  if (!header) throw new WebhookVerificationError('header_missing', 'No X-Svc-Signature header.');
  const parsed = parseHeader(header);
  if (!parsed) throw new WebhookVerificationError('header_malformed', 'X-Svc-Signature must look like t=<unix>,v1=<64 hex>.');
  const now = Math.floor((opts.now ?? Date.now)() / 1000);
  const tolerance = opts.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - parsed.t) > tolerance) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `Timestamp is more than ${tolerance} s from now.`);
  }
  const expected = Buffer.from(hmacHex(secret, parsed.t, rawBody), 'hex');
  const ok = parsed.v1.some((sig) => timingSafeEqual(Buffer.from(sig, 'hex'), expected));
  if (!ok) throw new WebhookVerificationError('signature_mismatch', 'No signature matches this secret and body.');
  return JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'));
}

/** A valid header for a payload, for merchants' own tests of their receivers. */
export function generateTestHeader(rawBody: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return merchantSignatureHeader([secret], timestamp, rawBody);
}

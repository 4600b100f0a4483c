// Verification of the payments engine's webhooks, for merchants' receivers. Dependency-free: only
// node:crypto. This file is the one implementation: the engine exports it as
// `payments-engine/webhooks`, and it installs on its own as `payments-engine-webhooks`
// (docs/webhooks.md). Types: ./index.d.ts.
//
// Merchant API:  X-Svc-Signature: t=<unix>,v1=<hex>[,v1=<hex>]
// Gateway API:   X-Svc-Timestamp: <unix>   X-Svc-Signature: sha256=<hex>[,sha256=<hex>]
// Each hex is HMAC-SHA256(secret, "<unix>.<raw body>"); one entry per active secret (rotation).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The typed error of the verifiers: `reason` is stable, `message` is for people. */
export class WebhookVerificationError extends Error {
  constructor(reason, message) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

const hmac = (secret, timestamp, body) => createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
const text = (body) => (typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));
const fail = (reason, message) => { throw new WebhookVerificationError(reason, message); };

function check(rawBody, timestamp, signatures, secret, opts) {
  if (typeof secret !== 'string' || secret === '') throw new TypeError('verify: the endpoint secret is missing');
  const now = Math.floor((opts.now ?? Date.now)() / 1000);
  const tolerance = opts.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - timestamp) > tolerance) fail('timestamp_out_of_tolerance', `Timestamp is more than ${tolerance} s from now.`);
  const expected = hmac(secret, timestamp, rawBody);
  // Every entry is compared (constant time each), so the time taken does not say which one matched.
  let ok = false;
  for (const sig of signatures) ok = timingSafeEqual(Buffer.from(sig, 'hex'), expected) || ok;
  if (!ok) fail('signature_mismatch', 'No signature matches this secret and body.');
  return JSON.parse(text(rawBody));
}

/**
 * A merchant API webhook: the raw body exactly as received, the X-Svc-Signature header and the
 * endpoint's secret. Returns the parsed event or throws WebhookVerificationError.
 */
export function verifyWebhook(rawBody, header, secret, opts = {}) {
  if (!header) fail('header_missing', 'No X-Svc-Signature header.');
  let t = NaN;
  const v1 = [];
  for (const part of String(header).split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't') t = /^\d{1,12}$/.test(v) ? Number(v) : NaN;
    else if (k === 'v1' && /^[0-9a-f]{64}$/.test(v)) v1.push(v);
  }
  if (!Number.isFinite(t) || v1.length === 0) fail('header_malformed', 'X-Svc-Signature must look like t=<unix>,v1=<64 hex>.');
  return check(rawBody, t, v1, secret, opts);
}

/**
 * A gateway API webhook: the raw body, the X-Svc-Timestamp and X-Svc-Signature headers and the
 * secret (the channel's, or the settings row's). Returns the parsed event or throws.
 */
export function verifyGatewayWebhook(rawBody, timestampHeader, signatureHeader, secret, opts = {}) {
  if (!timestampHeader || !signatureHeader) fail('header_missing', 'No X-Svc-Timestamp or X-Svc-Signature header.');
  const ts = String(timestampHeader).trim();
  const sigs = String(signatureHeader).split(',').map((p) => p.trim()).filter((p) => /^sha256=[0-9a-f]{64}$/.test(p)).map((p) => p.slice(7));
  if (!/^\d{1,12}$/.test(ts) || sigs.length === 0) fail('header_malformed', 'X-Svc-Timestamp must be unix seconds and X-Svc-Signature look like sha256=<64 hex>.');
  return check(rawBody, Number(ts), sigs, secret, opts);
}

/** A valid X-Svc-Signature for a payload, for merchants' own tests of their receivers. */
export function generateTestHeader(rawBody, secret, timestamp = Math.floor(Date.now() / 1000)) {
  return `t=${timestamp},v1=${hmac(secret, timestamp, rawBody).toString('hex')}`;
}

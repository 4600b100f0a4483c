// Webhook signatures of both APIs, as the dispatcher makes them. Receivers verify them with
// packages/webhooks (`payments-engine/webhooks`, or installed alone as `payments-engine-webhooks`).
//
// Merchant API:  X-Svc-Signature: t=<unix>,v1=<hex>[,v1=<hex>]
//                v1 = HMAC-SHA256(secret, "<t>.<raw body>") — one v1 per active secret (rotation).
// Gateway API:   X-Svc-Timestamp: <unix>   X-Svc-Signature: sha256=<hex>[,sha256=<hex>]
//                sha256 = HMAC-SHA256(secret, "<timestamp>.<raw body>") — the timestamp is signed so
//                a receiver can reject replays; one entry per active secret.
import { createHmac } from 'node:crypto';

export const hmacHex = (secret: string, timestamp: number, body: string | Buffer): string =>
  createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');

export function merchantSignatureHeader(secrets: string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${hmacHex(s, timestamp, body)}`)].join(',');
}

export function gatewaySignatureHeader(secrets: string[], timestamp: number, body: string): string {
  return secrets.map((s) => `sha256=${hmacHex(s, timestamp, body)}`).join(',');
}

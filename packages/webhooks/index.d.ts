// Types of ./index.js (payments-engine-webhooks).

export declare const DEFAULT_TOLERANCE_SECONDS: 300;

export type VerificationFailure = 'header_missing' | 'header_malformed' | 'timestamp_out_of_tolerance' | 'signature_mismatch';

export declare class WebhookVerificationError extends Error {
  readonly reason: VerificationFailure;
  constructor(reason: VerificationFailure, message: string);
}

export interface VerifyOptions {
  /** Seconds the timestamp may be away from now, either way (default 300). */
  tolerance?: number;
  /** The clock, in epoch milliseconds (default Date.now). */
  now?: () => number;
}

/** Verifies a merchant API webhook (X-Svc-Signature: t=…,v1=…) and returns the parsed event. */
export declare function verifyWebhook(rawBody: string | Uint8Array, header: string | string[] | undefined | null, secret: string, opts?: VerifyOptions): unknown;

/** Verifies a gateway API webhook (X-Svc-Timestamp and X-Svc-Signature: sha256=…) and returns the parsed event. */
export declare function verifyGatewayWebhook(
  rawBody: string | Uint8Array, timestampHeader: string | string[] | undefined | null, signatureHeader: string | string[] | undefined | null,
  secret: string, opts?: VerifyOptions,
): unknown;

/** A valid X-Svc-Signature header for `rawBody` under `secret`, for tests of a receiver. */
export declare function generateTestHeader(rawBody: string, secret: string, timestamp?: number): string;

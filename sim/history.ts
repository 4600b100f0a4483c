// The history: every request the simulator sent and the answer it got, grouped by operation (one
// keyed command and all its tries, duplicates and retries). The checker judges it against the final
// state; the report prints the part of it that shows a violation.

export type OpKind =
  | 'payment.create' | 'checkout.pay' | 'direct.create' | 'merchant.refund' | 'gateway.refund'
  | 'capture' | 'cancel' | 'payout' | 'link.create' | 'link.pay';

/** How a client reads an answer under the contract (docs/decisions.md). */
export type Verdict = 'ok' | 'retry' | 'unavailable' | 'refused';

export interface Exchange {
  seq: number;
  client: string;
  /** Why it was sent: first try, a duplicate at once, a later duplicate, a retry, the final check. */
  role: 'first' | 'dup-now' | 'dup-later' | 'retry' | 'final';
  proc: number;
  method: string;
  path: string;
  key: string | null;
  body: unknown;
  sentMs: number;
  answeredMs: number;
  /** 0: no answer (connection refused or reset, or our 15 s timeout). */
  status: number;
  /** The error code, lower case (the gateway's `reason` when it has one), or null. */
  code: string | null;
  answer: unknown;
  location: string | null;
  /** The X-Request-Id the server gave this try (rows keep the request id that created them). */
  requestId: string | null;
  verdict: Verdict;
}

export interface Op {
  id: string;
  kind: OpKind;
  client: string;
  key: string | null;
  /** The payment (or link) it acts on, when it acts on one. */
  target: string | null;
  method: string;
  path: string;
  body: unknown;
  exchanges: Exchange[];
}

/** Codes that tell the client to send the same key again later. */
const RETRY_CODES = new Set([
  'outcome_unknown', 'deadline_exceeded', 'idempotency_key_in_use', 'refund_in_progress', 'payment_attempt_in_progress',
  'payment_attempt_interrupted', 'link_busy', 'rate_limited', 'internal_error',
]);

export function codeOf(answer: unknown): string | null {
  const e = (answer as { error?: { code?: unknown; reason?: unknown } } | null)?.error;
  if (!e) return null;
  const c = typeof e.reason === 'string' ? e.reason : typeof e.code === 'string' ? e.code : null;
  return c ? c.toLowerCase() : null;
}

/** The bank's refusals: 502, not retryable, recorded under the key and replayed (docs/retries.md). */
/** A bank's refusal: definite, recorded under the key (a refund's as its failed row) and replayed. */
export const BANK_REFUSALS = new Set(['refund_failed', 'capture_failed', 'cancel_failed']);

export function verdictOf(status: number, code: string | null): Verdict {
  if ((status >= 200 && status < 300) || status === 302 || status === 303) return 'ok';
  if (status === 502 && code !== null && BANK_REFUSALS.has(code)) return 'refused';
  if (status === 0 || status === 429 || status >= 500 && code !== 'service_unavailable') return 'retry';
  if (status === 503 || code === 'service_unavailable') return 'unavailable';
  // Any "…_in_progress" or "…_in_use" 409 says the key is busy, whatever its exact code.
  if (code && (RETRY_CODES.has(code) || /_in_(progress|use)$/.test(code))) return 'retry';
  return 'refused';
}

export class History {
  readonly ops: Op[] = [];
  readonly faults: { atMs: number; what: string }[] = [];
  private seq = 0;
  readonly t0 = Date.now();

  now(): number {
    return Date.now() - this.t0;
  }

  op(kind: OpKind, client: string, key: string | null, target: string | null, method: string, path: string, body: unknown): Op {
    const op: Op = { id: `${kind}#${this.ops.length}`, kind, client, key, target, method, path, body, exchanges: [] };
    this.ops.push(op);
    return op;
  }

  record(op: Op, e: Omit<Exchange, 'seq'>): Exchange {
    const x = { ...e, seq: this.seq++ };
    op.exchanges.push(x);
    return x;
  }

  fault(what: string): void {
    this.faults.push({ atMs: this.now(), what });
  }

  get exchangeCount(): number {
    return this.seq;
  }
}

/** The first answer of an op that was a 2xx (or the link page's redirect). */
export const firstOk = (op: Op): Exchange | undefined => op.exchanges.find((x) => x.verdict === 'ok' && x.role !== 'final');

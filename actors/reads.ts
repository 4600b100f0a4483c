// Reads answered on the worker thread: the row comes from Postgres through the worker's grouped
// reads (one statement for the ids that arrive together), and the answer is rendered to its bytes
// here, so the main thread only writes them. A failure is data: 503 when Postgres cannot be reached
// or does not answer in time (retryable), 500 otherwise, each logged with its cause.
import { toMerchantPayment } from '../src/api/merchant-payment-view.js';
import { fail } from '../src/errors.js';
import type { Logger } from '../src/log.js';
import { isDatabaseUnavailable } from '../src/store/db.js';
import type { PaymentReads } from '../src/store/payment-reads.js';
import type { ReadReply, ReadRequest } from './protocol.js';

export async function answerRead(reads: PaymentReads, r: ReadRequest, publicBaseUrl: string, log: Logger): Promise<ReadReply> {
  try {
    const p = await reads.payment(r.id);
    // Another merchant's or mode's payment is not found.
    if (!p || p.merchantId !== r.merchantId || p.livemode !== r.livemode) return { ok: true, body: null };
    return { ok: true, body: JSON.stringify(toMerchantPayment(p, publicBaseUrl, r.requestId)) };
  } catch (err) {
    const unavailable = isDatabaseUnavailable(err as Error);
    log.error({ err, kind: r.kind, id: r.id, requestId: r.requestId }, unavailable ? 'read failed: database unreachable' : 'read failed');
    return { ok: false, failure: unavailable ? { ...fail('service_unavailable'), retryAfterSeconds: 1 } : fail('internal_error') };
  }
}

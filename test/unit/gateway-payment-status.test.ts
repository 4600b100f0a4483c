// The gateway view of every payment status (and of each checkout wait while pending).
import t from 'tap';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../src/domain/payment.js';
import { gatewayPaymentStatus, storedStatusesOf, GATEWAY_PAYMENT_STATUSES, type StoredStatus } from '../../src/domain/gateway-payment.js';
import type { Awaiting } from '../../src/domain/checkout.js';

const WAITS: (Awaiting | null)[] = [null, 'three_ds', 'sbp', 'wallet', 'poll'];
const PENDING: Record<string, string> = { null: 'pending', three_ds: 'requires_action', sbp: 'requires_action', wallet: 'requires_action', poll: 'processing' };
const OTHER: Record<Exclude<PaymentStatus, 'pending'>, string> = {
  succeeded: 'succeeded', failed: 'failed', expired: 'expired', refunded: 'refunded', partially_refunded: 'partially_refunded',
  review: 'processing', cancelled: 'cancelled', authorized: 'authorized',
};

/** What the SQL of src/store/gateway-payments-repo.ts selects for one filter pair (its meaning, restated). */
const selects = (f: StoredStatus, status: PaymentStatus, awaiting: Awaiting | null): boolean =>
  f.status === status && (f.wait === 'any' || (f.wait === 'none' ? awaiting === null : f.wait === 'poll' ? awaiting === 'poll' : awaiting !== null && awaiting !== 'poll'));

for (const status of PAYMENT_STATUSES) {
  for (const awaiting of WAITS) {
    const want = status === 'pending' ? PENDING[String(awaiting)] : OTHER[status];
    t.test(`${status} awaiting ${awaiting}`, async (t) => {
      const got = gatewayPaymentStatus(status, { awaiting });
      t.equal(got, want);
      t.ok(storedStatusesOf(got).some((f) => selects(f, status, awaiting)), 'the list filter of the shown status selects it');
      for (const other of GATEWAY_PAYMENT_STATUSES.filter((g) => g !== got)) {
        t.notOk(storedStatusesOf(other).some((f) => selects(f, status, awaiting)), `the ${other} filter leaves it out`);
      }
    });
  }
}

t.test('every gateway status is reachable', async (t) => {
  const seen = new Set(PAYMENT_STATUSES.flatMap((s) => WAITS.map((w) => gatewayPaymentStatus(s, { awaiting: w }))));
  t.same([...seen].sort(), [...GATEWAY_PAYMENT_STATUSES].sort());
});

// The gateway view of every payment status (and of each checkout wait while pending).
import t from 'tap';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../src/domain/payment.js';
import { gatewayPaymentStatus, paymentStatusesOf, GATEWAY_PAYMENT_STATUSES } from '../../src/domain/gateway-payment.js';
import type { Awaiting } from '../../src/domain/checkout.js';

const WAITS: (Awaiting | null)[] = [null, 'three_ds', 'sbp', 'wallet', 'poll'];
const PENDING: Record<string, string> = { null: 'pending', three_ds: 'requires_action', sbp: 'requires_action', wallet: 'requires_action', poll: 'processing' };
const OTHER: Record<Exclude<PaymentStatus, 'pending'>, string> = {
  succeeded: 'succeeded', failed: 'failed', expired: 'expired', refunded: 'refunded', partially_refunded: 'partially_refunded',
  review: 'processing', cancelled: 'cancelled', authorized: 'authorized',
};

for (const status of PAYMENT_STATUSES) {
  for (const awaiting of WAITS) {
    const want = status === 'pending' ? PENDING[String(awaiting)] : OTHER[status];
    t.test(`${status} awaiting ${awaiting}`, async (t) => {
      const got = gatewayPaymentStatus(status, { awaiting });
      t.equal(got, want);
      t.ok(paymentStatusesOf(got).includes(status), 'the list filter of the shown status selects it');
    });
  }
}

t.test('every gateway status is reachable', async (t) => {
  const seen = new Set(PAYMENT_STATUSES.flatMap((s) => WAITS.map((w) => gatewayPaymentStatus(s, { awaiting: w }))));
  t.same([...seen].sort(), [...GATEWAY_PAYMENT_STATUSES].sort());
});

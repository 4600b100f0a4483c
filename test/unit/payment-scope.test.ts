// The scope an actor checks before acting on a payment named by id (domain/payment-scope.ts): the
// merchant and mode always; on the gateway, a checkout session's payment, of the key's channel when
// the key has one.
import t from 'tap';
import { inScope } from '../../src/domain/payment-scope.js';
import type { Payment } from '../../src/domain/payment.js';

const session = {} as NonNullable<Payment['session']>;
const p = (o: Partial<Payment>): Payment => ({ merchantId: 'mer_a', livemode: false, session, channelId: 'ch_web', ...o }) as Payment;

t.ok(inScope(p({}), { merchantId: 'mer_a', livemode: false }), 'merchant and mode');
t.notOk(inScope(p({}), { merchantId: 'mer_b', livemode: false }), 'another merchant');
t.notOk(inScope(p({}), { merchantId: 'mer_a', livemode: true }), 'another mode');
t.ok(inScope(p({ session: null }), { merchantId: 'mer_a', livemode: false }), 'the merchant API sees its payments without a session');
t.notOk(inScope(p({ session: null }), { merchantId: 'mer_a', livemode: false, gateway: { channelId: null } }), 'the gateway only a session\'s');
t.ok(inScope(p({}), { merchantId: 'mer_a', livemode: false, gateway: { channelId: null } }), 'a key without a channel: any channel');
t.ok(inScope(p({}), { merchantId: 'mer_a', livemode: false, gateway: { channelId: 'ch_web' } }), 'its own channel');
t.notOk(inScope(p({}), { merchantId: 'mer_a', livemode: false, gateway: { channelId: 'ch_bot' } }), 'another channel');
t.notOk(inScope(p({ channelId: null }), { merchantId: 'mer_a', livemode: false, gateway: { channelId: 'ch_bot' } }), 'no channel is not the key\'s channel');

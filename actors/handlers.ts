// The handler of every command kind: one line per command, so adding an aggregate means one actor
// file and its lines here. The worker runs them inside the keyed mailbox of the command's id.
import type { ActorContext } from './context.js';
import type { CommandKind, CommandOf, ReplyOf } from './protocol.js';
import { handleApply, handleCreate, handleCreateDirect } from './payment-actor.js';
import { handleLinkCreate, handleLinkDeactivate, handleLinkPay } from './link-actor.js';
import { handleAttemptRecover, handleCheckoutCallback, handleCheckoutCancel, handleCheckoutComplete, handleCheckoutPay, handleCheckoutSubmit } from './checkout-actor.js';
import { handleRefund } from './refund-actor.js';
import { handlePayoutCreate } from './payout-actor.js';
import { handleCapture, handleVoid } from './capture-actor.js';

export type Handlers = { [K in CommandKind]: (ctx: ActorContext, cmd: CommandOf<K>) => Promise<ReplyOf<K>> };

export const handlers: Handlers = {
  'payment.create': handleCreate,
  'payment.create_direct': handleCreateDirect,
  'payment.apply': handleApply,
  'payment.capture': handleCapture,
  'payment.void': handleVoid,
  'checkout.pay': handleCheckoutPay,
  'checkout.submit': handleCheckoutSubmit,
  'checkout.callback': handleCheckoutCallback,
  'checkout.complete': handleCheckoutComplete,
  'checkout.cancel': handleCheckoutCancel,
  'attempt.recover': handleAttemptRecover,
  'link.create': handleLinkCreate,
  'link.deactivate': handleLinkDeactivate,
  'link.pay': handleLinkPay,
  'payment.refund': handleRefund,
  'payout.create': handlePayoutCreate,
};

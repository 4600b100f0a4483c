// The typed messages between the main thread and the actor workers: one union each way.
// A failed command travels as data (ApiFailure), never as a thrown, structured-cloned error.
import type { ApiFailure } from '../src/errors.js';
import type { CreateContext, NewPayment, Payment, PaymentCommand } from '../src/domain/payment.js';
import type { CheckoutState } from '../src/domain/checkout.js';
import type { CheckoutMessage } from './checkout-actor.js';
import type { WebhookConfig } from '../src/config.js';
import type { DbTimeouts } from '../src/store/db.js';

export type Command =
  | { kind: 'payment.create'; id: string; input: NewPayment; ctx: CreateContext }
  | { kind: 'payment.apply'; id: string; command: PaymentCommand }
  | CheckoutMessage;

export type Reply =
  | { ok: true; payment: Payment; replayed: boolean; checkout?: CheckoutState }
  | { ok: false; failure: ApiFailure };

export interface WorkerStats { shard: number; mailboxDepth: number; actors: number; processed: number }

/** Main thread -> worker. */
export type ToWorker =
  | { t: 'cmd'; rid: number; cmd: Command }
  | { t: 'stats'; rid: number }
  | { t: 'drain' };

/** Worker -> main thread. */
export type FromWorker =
  | { t: 'reply'; rid: number; reply: Reply }
  | { t: 'stats'; rid: number; stats: WorkerStats };

export interface WorkerInit {
  shard: number;
  databaseUrl: string;
  poolSize: number;
  /** Connections of the worker's webhook dispatcher pool, the deadlines and the pools' name prefix. */
  hooksPoolSize: number;
  dbTimeouts: DbTimeouts;
  appName: string;
  mailboxLimit: number;
  logLevel: string;
  publicBaseUrl: string;
  webhooks: WebhookConfig;
}

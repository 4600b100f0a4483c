// What route handlers are given: the process's shared services.
import type pg from 'pg';
import type { Config } from '../config.js';
import type { AccessLog, Logger } from '../log.js';
import type { KeyValue } from '../store/kv.js';
import type { Metrics } from '../metrics/registry.js';
import type { Dispatcher } from '../../actors/dispatcher.js';
import type { Authenticator } from './auth.js';
import type { Idempotency } from './idempotency.js';
import type { PaymentReads } from '../store/payment-reads.js';
import type { WebhookDispatcher } from '../../actors/webhook-dispatcher.js';

export interface Services {
  config: Config;
  adminToken: string;
  log: Logger;
  /** One line per answered request (ACCESS_LOG), or null when off. */
  accessLog: AccessLog | null;
  db: pg.Pool;
  kv: KeyValue;
  dispatcher: Dispatcher;
  auth: Authenticator;
  idempotency: Idempotency;
  metrics: Metrics;
  /** Payments by id from Postgres, grouped into one statement when they arrive together. */
  reads: PaymentReads;
  /** Main-thread dispatcher for operator-triggered first attempts (test pings, resends). */
  webhooks: WebhookDispatcher;
}

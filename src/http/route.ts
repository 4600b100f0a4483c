// The shape of a route table entry.
import type { Permission } from '../domain/permissions.js';
import type { ApiName, Ctx } from './context.js';
import type { Services } from './services.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface Route {
  method: Method;
  /** uWS pattern, e.g. /api/v2/payments/:id */
  path: string;
  api: ApiName;
  /**
   * merchant: svc_ keys; gateway: sk_ and rk_ keys (rk_ needs `permission`); widget: pk_ keys too
   * (src/domain/permissions.ts); admin: the operator token; none: public.
   */
  auth: 'merchant' | 'gateway' | 'widget' | 'admin' | 'none';
  /** What a restricted key must hold for this route (gateway and widget routes). */
  permission?: Permission;
  /** Whether the handler takes a JSON body. */
  body?: boolean;
  /**
   * The body field that may carry the Idempotency-Key (the gateway refund's `idempotency_key`). A
   * refusal of "nothing happened" before the handler runs (its key's lookup could not reach the
   * database) first looks for it in the body, so that a keyed request is never told that.
   */
  bodyKey?: string;
  handler: (ctx: Ctx, s: Services, body: unknown) => Promise<void> | void;
}

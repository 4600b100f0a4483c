// The shape of a route table entry.
import type { ApiName, Ctx } from './context.js';
import type { Services } from './services.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface Route {
  method: Method;
  /** uWS pattern, e.g. /api/v2/payments/:id */
  path: string;
  api: ApiName;
  auth: 'merchant' | 'admin' | 'none';
  /** Whether the handler takes a JSON body. */
  body?: boolean;
  handler: (ctx: Ctx, s: Services, body: unknown) => Promise<void> | void;
}

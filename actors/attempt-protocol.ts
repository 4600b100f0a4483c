// The attempt protocol every money-moving connector call follows (DESIGN invariant 9):
//   1. record the attempt (id, operation, amount) under the aggregate's version check, and commit;
//   2. call the connector with the attempt id as its idempotency key;
//   3. record the outcome under the version check (the aggregate's actor does this step).
// A crash or a conflict after step 1 is resolved by asking the connector for the outcome of that
// attempt id (recovery.ts and the actors' recover handlers), never by calling it again blind.
import { prefixedId } from '../src/domain/ids.js';
import { failpoint } from '../src/failpoints.js';
import { withDeadline } from '../src/deadline.js';
import type { Connector, ConnectorRequest, ConnectorResult } from '../src/connectors/types.js';
import type { AttemptStart } from '../src/store/attempts-repo.js';
import { markCommitted, type ActorContext } from './context.js';

export interface AttemptPlan<R = ConnectorResult> {
  operation: string;
  amount: number;
  currency: string;
  /** What recovery needs to apply the outcome; stored with the attempt (never card data). */
  context: Record<string, unknown>;
  call(connector: Connector, request: ConnectorRequest): Promise<R>;
}

export interface AttemptTarget { id: string; version: number; livemode: boolean }

export type AttemptRun<R = ConnectorResult> =
  /** Steps 1 and 2 done: the aggregate is at version + 1 and names the attempt; record `result`. */
  | { kind: 'answered'; attemptId: string; result: R }
  /** Step 1 lost the version race (or another attempt is in flight): nothing was written or called. */
  | { kind: 'conflict' }
  /** The connector gave no answer in time: the attempt stays open and recovery settles it. */
  | { kind: 'no_answer'; attemptId: string };

/** Steps 1 and 2. `begin` records the attempt on the aggregate's row under its version check. */
export async function startAttempt<R = ConnectorResult>(
  ctx: ActorContext, target: AttemptTarget, plan: AttemptPlan<R>,
  begin: (expectedVersion: number, start: AttemptStart) => Promise<boolean>,
): Promise<AttemptRun<R>> {
  const connector = ctx.connectors(target.livemode);
  const attemptId = prefixedId('att', 24);
  const recorded = await begin(target.version, {
    id: attemptId, operation: plan.operation, connector: connector.name, amount: plan.amount, currency: plan.currency, context: plan.context,
  });
  if (!recorded) return { kind: 'conflict' };
  markCommitted(ctx);
  failpoint('after-attempt-recorded');
  const request: ConnectorRequest = {
    attemptId, paymentId: target.id, amount: plan.amount, currency: plan.currency, livemode: target.livemode, baseUrl: ctx.publicBaseUrl,
  };
  const bounded = await withDeadline(plan.call(connector, request), ctx.connectorTimeoutMs);
  if (bounded.error !== undefined) throw bounded.error;
  if (bounded.timedOut) {
    ctx.log.warn({ attemptId, aggregateId: target.id, operation: plan.operation }, 'connector gave no answer in time; recovery will ask it for the outcome');
    return { kind: 'no_answer', attemptId };
  }
  failpoint('after-connector-call');
  return { kind: 'answered', attemptId, result: bounded.value! };
}

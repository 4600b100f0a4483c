// The idempotency step every create uses (payments, refunds, links; sessions and payouts next).
// No Redis round trip before the create: Postgres is the arbiter (the key on the created row under
// a unique index), and the actor that creates answers "created" or "existing" (a replay, or a
// conflict when the request differs). Creates with one key are routed to one mailbox (see
// `mailboxOf` in actors/protocol.ts), so a second request while the first runs waits for it and is
// answered as its replay; across processes the unique index makes the second insert wait for the
// first's commit. Redis keeps the first answer for byte-for-byte replays, written after the commit.
import { fail, type ApiFailure } from '../errors.js';
import { failpoint } from '../failpoints.js';
import type { Ctx } from './context.js';
import { Idempotency, requestHash, validIdempotencyKey, type IdempotentKind, type StoredAnswer } from './idempotency.js';
import { sendFailure, sendJson } from './reply.js';
import type { Services } from './services.js';

export type { StoredAnswer };

/** The Idempotency-Key of a create, its scope (merchant, mode, kind, key) and the hash of what the request asks for. */
export interface IdempotencyOf { key: string | null; scope: string; hash: string }

export type IdempotentRequest = IdempotencyOf;

/** Reads and checks the Idempotency-Key header once for every create: the key, its scope and the request hash, or the 400. */
export function idempotencyOf(ctx: Ctx, owner: { merchantId: string; livemode: boolean }, kind: IdempotentKind, path: string, body: unknown): IdempotencyOf | ApiFailure {
  const key = ctx.headers['idempotency-key'] ?? null;
  if (key === null) return { key: null, scope: '', hash: '' };
  if (!validIdempotencyKey(key)) return fail('idempotency_key_invalid', 'Idempotency-Key');
  return { key, scope: Idempotency.scope(owner.merchantId, owner.livemode, kind, key), hash: requestHash('POST', path, body) };
}

/** The mailbox a create runs in: its idempotency scope when it has a key (one at a time per key), else its own id. */
export const createMailbox = (idem: IdempotencyOf): string | undefined => (idem.key === null ? undefined : idem.scope);

/** `replayed`: the actor found the key already used by an identical request (Postgres arbitrated). */
/** `cached`: the worker already wrote the answer to the replay cache. */
/** `uncached`: the answer shows a state still in motion (a payment not yet paid): never cached, and a replay shows it as it is now. */
/** `replayedFrom`: a failure the key holds from that earlier request (a payout's refusal): sent as a replay. */
export type CreateOutcome = { answer: StoredAnswer; replayed: boolean; cached?: boolean; uncached?: boolean } | { failure: ApiFailure; replayedFrom?: string };

export function replay(ctx: Ctx, a: StoredAnswer): void {
  // The first answer again, byte for byte; X-Request-Id names the request that produced it.
  const idx = ctx.extraHeaders.findIndex(([k]) => k === 'X-Request-Id');
  if (idx >= 0) ctx.extraHeaders.splice(idx, 1);
  sendJson(ctx, a.status, a.body, [['Idempotent-Replayed', 'true'], ['X-Request-Id', a.requestId], ['Original-Request', a.requestId]]);
}

/** Runs `create` (whose actor arbitrates the key in Postgres), answering replays and conflicts in the envelope. */
export async function runIdempotent(ctx: Ctx, s: Services, req: IdempotentRequest, create: () => Promise<CreateOutcome>): Promise<void> {
  await runIdempotentIfFound(ctx, s, req, create);
}

/**
 * As runIdempotent, for a `create` that may answer null: its object was not found and nothing was
 * recorded, so nothing is answered and the caller may try another way (false).
 */
export async function runIdempotentIfFound(ctx: Ctx, s: Services, req: IdempotentRequest, create: () => Promise<CreateOutcome | null>): Promise<boolean> {
  if (req.key !== null) failpoint('after-idempotency-claim'); // the name of the point before the create (no claim is made any more)
  const out = await create();
  if (out === null) return false;
  await answer(ctx, s, req, out);
  return true;
}

async function answer(ctx: Ctx, s: Services, req: IdempotentRequest, out: CreateOutcome): Promise<void> {
  if (req.key === null) return 'failure' in out ? sendFailure(ctx, out.failure) : sendJson(ctx, out.answer.status, out.answer.body);
  if ('failure' in out) {
    return sendFailure(ctx, out.failure, out.replayedFrom ? [['Idempotent-Replayed', 'true'], ['Original-Request', out.replayedFrom]] : []);
  }
  if (!out.replayed) {
    if (!out.cached && !out.uncached) s.idempotency.remember(req.scope, req.hash, out.answer);
    return sendJson(ctx, out.answer.status, out.answer.body);
  }
  if (out.uncached) return replay(ctx, out.answer);
  // A replay: the first answer as given when Redis still has it, else rendered from the committed row.
  const first = await s.idempotency.recall(req.scope, req.hash);
  if (first) return replay(ctx, first);
  s.idempotency.remember(req.scope, req.hash, out.answer);
  return replay(ctx, out.answer);
}

export { Idempotency };

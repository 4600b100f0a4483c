// The idempotency step every create uses (payments today; refunds, links, sessions, payouts next).
// Redis answers fast (a replay, or "in flight"); Postgres is the arbiter: the key sits on the
// created row under a unique index, so a lost, flushed or stale Redis record never creates twice,
// and an in-flight marker left by a process that died is checked against Postgres before anyone
// is told to wait.
import { fail, type ApiFailure } from '../errors.js';
import { failpoint } from '../failpoints.js';
import type { Ctx } from './context.js';
import { Idempotency, requestHash, validIdempotencyKey, type IdempotentKind } from './idempotency.js';
import { sendFailure, sendJson } from './reply.js';
import type { Services } from './services.js';

/** An answer as first given: replayed byte for byte, with the request id that produced it. */
export interface StoredAnswer { status: number; body: string; requestId: string }

export interface IdempotentRequest {
  /** The Idempotency-Key header (already validated), or null for a create without one. */
  key: string | null;
  /** Redis scope of the key (merchant, mode, key) and the hash of what the request asks for. */
  scope: string;
  hash: string;
  /** The committed answer for this key in Postgres, with the hash of the request that made it. */
  committed(): Promise<(StoredAnswer & { hash: string }) | null>;
}

/** The Idempotency-Key of a create, its Redis scope and the hash of what the request asks for. */
export interface IdempotencyOf { key: string | null; scope: string; hash: string }

/** Reads and checks the Idempotency-Key header once for every create: the key, its scope and the request hash, or the 400. */
export function idempotencyOf(ctx: Ctx, owner: { merchantId: string; livemode: boolean }, kind: IdempotentKind, path: string, body: unknown): IdempotencyOf | ApiFailure {
  const key = ctx.headers['idempotency-key'] ?? null;
  if (key === null) return { key: null, scope: '', hash: '' };
  if (!validIdempotencyKey(key)) return fail('idempotency_key_invalid', 'Idempotency-Key');
  return { key, scope: Idempotency.scope(owner.merchantId, owner.livemode, kind, key), hash: requestHash('POST', path, body) };
}

export type CreateOutcome = { answer: StoredAnswer; replayed: boolean } | { failure: ApiFailure };

export function replay(ctx: Ctx, a: StoredAnswer): void {
  // The first answer again, byte for byte; X-Request-Id names the request that produced it.
  const idx = ctx.extraHeaders.findIndex(([k]) => k === 'X-Request-Id');
  if (idx >= 0) ctx.extraHeaders.splice(idx, 1);
  sendJson(ctx, a.status, a.body, [['Idempotent-Replayed', 'true'], ['X-Request-Id', a.requestId], ['Original-Request', a.requestId]]);
}

/** Runs `create` at most once per key, answering replays, conflicts and in-flight keys in the envelope. */
export async function runIdempotent(ctx: Ctx, s: Services, req: IdempotentRequest, create: () => Promise<CreateOutcome>): Promise<void> {
  if (req.key === null) {
    const out = await create();
    return 'failure' in out ? sendFailure(ctx, out.failure) : sendJson(ctx, out.answer.status, out.answer.body);
  }
  const begin = await s.idempotency.begin(req.scope, req.hash);
  if (begin.kind === 'conflict') return sendFailure(ctx, fail('idempotency_conflict', 'Idempotency-Key'));
  if (begin.kind === 'replay') return replay(ctx, begin);
  if (begin.kind === 'in_flight') {
    // Another request holds the key, or held it and died: Postgres knows whether it committed.
    const done = await req.committed();
    if (!done) return sendFailure(ctx, { ...fail('idempotency_key_in_use', 'Idempotency-Key'), retryAfterSeconds: 1 });
    if (done.hash !== req.hash) return sendFailure(ctx, fail('idempotency_conflict', 'Idempotency-Key'));
    await s.idempotency.complete(req.scope, req.hash, done.status, done.body, done.requestId);
    return replay(ctx, done);
  }
  failpoint('after-idempotency-claim');
  const out = await create();
  if ('failure' in out) {
    // Nothing is known to be committed under the key: let a retry run (Postgres still arbitrates).
    await s.idempotency.abandon(req.scope);
    return sendFailure(ctx, out.failure);
  }
  await s.idempotency.complete(req.scope, req.hash, out.answer.status, out.answer.body, out.answer.requestId);
  return out.replayed ? replay(ctx, out.answer) : sendJson(ctx, out.answer.status, out.answer.body);
}

export { Idempotency };

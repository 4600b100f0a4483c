// One try of an operation against one server process, recorded in the history; and the client's
// retry discipline under the contract: an unknown outcome, a 409 "in progress" or no answer at all
// is retried later with the same key (bounded); a refusal or "service unavailable" ends the op.
import { codeOf, verdictOf, type Exchange, type History, type Op } from './history.js';
import type { Rng } from './rng.js';
import type { World } from './world.js';

export interface Auth { merchant: string; secret: string }

const TIMEOUT_MS = 15_000;
const MAX_TRIES = 6;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function headersOf(op: Op, auth: Auth): Record<string, string> {
  const h: Record<string, string> = {};
  if (op.kind === 'link.pay') h['content-type'] = 'application/x-www-form-urlencoded';
  else h['content-type'] = 'application/json';
  const bearer = op.path.startsWith('/api/v2/') ? auth.merchant : op.path.startsWith('/v2/') ? auth.secret : null;
  if (bearer) h.authorization = `Bearer ${bearer}`;
  // The gateway refund carries its key in the body; every other keyed op sends the header.
  if (op.key && op.kind !== 'gateway.refund') h['idempotency-key'] = op.key;
  return h;
}

export async function send(world: World, history: History, auth: Auth, op: Op, proc: number, role: Exchange['role']): Promise<Exchange> {
  const sentMs = history.now();
  const server = world.servers[proc];
  let status = 0;
  let answer: unknown = null;
  let location: string | null = null;
  let requestId: string | null = null;
  try {
    const body = op.body === undefined ? undefined : op.kind === 'link.pay' ? '' : JSON.stringify(op.body);
    const r = await fetch(`http://127.0.0.1:${server.port}${op.path}`, {
      method: op.method, headers: headersOf(op, auth), body, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await r.text();
    status = r.status;
    location = r.headers.get('location');
    requestId = r.headers.get('x-request-id');
    try { answer = JSON.parse(text); } catch { answer = text.length > 200 ? `${text.slice(0, 200)}…` : text; }
  } catch (err) {
    answer = `no answer: ${(err as Error).cause ? String((err as { cause: { code?: string } }).cause.code ?? (err as Error).message) : (err as Error).name}`;
  }
  const code = codeOf(answer);
  return history.record(op, {
    client: op.client, role, proc, method: op.method, path: op.path, key: op.key, body: op.body,
    sentMs, answeredMs: history.now(), status, code, answer, location, requestId, verdict: verdictOf(status, code),
  });
}

/** Whether the op has a definite answer: a 2xx, a refusal, or "service unavailable". */
export const settled = (op: Op): boolean => op.exchanges.some((x) => x.verdict !== 'retry');

/**
 * Runs an op the way a client following the contract does: the first try (with a same-key duplicate
 * at once to the other process when `dupNow`), retries while the outcome is unknown, then maybe a
 * same-key duplicate some time later. Returns the op's first 2xx answer, or null.
 */
export async function run(world: World, history: History, auth: Auth, rng: Rng, op: Op, opts: { dupNow?: boolean; dupLater?: boolean; stop: () => boolean }): Promise<Exchange | null> {
  const p = rng.int(0, 1);
  if (opts.dupNow) await Promise.all([send(world, history, auth, op, p, 'first'), send(world, history, auth, op, 1 - p, 'dup-now')]);
  else await send(world, history, auth, op, p, 'first');
  for (let tries = 1; !settled(op) && tries < MAX_TRIES && !opts.stop(); tries++) {
    await sleep(rng.int(200, 400) * tries);
    await send(world, history, auth, op, rng.int(0, 1), 'retry');
  }
  const ok = op.exchanges.find((x) => x.verdict === 'ok') ?? null;
  if (ok && opts.dupLater && !opts.stop()) {
    await sleep(rng.int(100, 1500));
    let x = await send(world, history, auth, op, 1 - ok.proc, 'dup-later');
    for (let tries = 1; x.verdict === 'retry' && tries < MAX_TRIES && !opts.stop(); tries++) {
      await sleep(rng.int(200, 400) * tries);
      x = await send(world, history, auth, op, rng.int(0, 1), 'retry');
    }
  }
  return ok;
}

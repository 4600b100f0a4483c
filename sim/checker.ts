// The checker: (a) the sandbox bank's ledger equals the engine's rows, (b) every answer is true of
// the final state under the contract, (c) a key answers the same after convergence, (d) nothing is
// left open or pending; (e), reconciliation, is in reconcile.ts. Each violation names the op (and so the key) whose history shows it.
import { BANK_REFUSALS, firstOk, type Exchange, type Op } from './history.js';
import type { State } from './state.js';

export interface Violation { check: 'a' | 'b' | 'c' | 'd' | 'e'; cls: string; op: Op | null; detail: string; rows?: unknown }

const CHARGE_OPS = new Set(['authorize_card', 'complete_challenge', 'charge_wallet_token', 'charge_saved', 'resolve_external']);
const PAID = new Set(['succeeded', 'partially_refunded', 'refunded', 'authorized']);
/** Refusals that say nothing about the key's effect: a differing body, a busy key, rate limiting. */
const NEUTRAL = new Set(['idempotency_conflict', 'idempotency_key_in_use', 'rate_limited']);

const moved = (s: State, aggregate: string, ops: Set<string> | string) =>
  (s.movedByAggregate.get(aggregate) ?? []).filter((l) => (typeof ops === 'string' ? l.operation === ops : ops.has(l.operation)));

/** (a) and (d): money in the bank and rows in the engine agree; nothing open or pending. */
export function checkLedger(s: State): Violation[] {
  const out: Violation[] = [];
  const v = (check: Violation['check'], cls: string, detail: string, rows?: unknown) => out.push({ check, cls, op: null, detail, rows });
  for (const l of s.ledger) if (l.moved && !s.attempts.has(l.key)) v('a', 'bank moved money no attempt knows', `ledger ${l.key} ${l.operation} ${l.amount}`, l);
  for (const a of s.attempts.values()) if (a.status === 'started') v('d', 'attempt left open', `attempt ${a.id} ${a.operation} of ${a.aggregate_id}`, a);
  const ledgerOf = new Map(s.ledger.map((l) => [l.key, l]));
  const rowAttempts = new Set<string>();
  for (const [kind, rows, paid] of [['refund', s.refunds, 'succeeded'], ['payout', s.payouts, 'paid']] as const) {
    for (const r of rows) {
      rowAttempts.add(r.attempt_id);
      const l = ledgerOf.get(r.attempt_id);
      if (r.status === 'pending') v('d', `${kind} left pending`, `${kind} ${r.id} (key ${r.idempotency_key})`, { row: r, ledger: l ?? null });
      else if ((r.status === paid) !== !!l?.moved) v('a', `${kind} row and bank disagree`, `${kind} ${r.id} is ${r.status}, bank ${l ? (l.moved ? 'moved' : 'did not move') : 'has no entry'}`, { row: r, ledger: l ?? null });
      else if (l?.moved && l.amount !== r.amount) v('a', `${kind} amount differs from the bank's`, `${kind} ${r.id} ${r.amount} vs bank ${l.amount}`, { row: r, ledger: l });
    }
  }
  for (const l of s.ledger) {
    if (l.moved && (l.operation === 'refund' || l.operation === 'payout') && !rowAttempts.has(l.key)) v('a', `bank ${l.operation} without a row`, `ledger ${l.key} ${l.amount}`, l);
  }
  for (const p of s.payments.values()) {
    const charges = moved(s, p.id, CHARGE_OPS);
    const captures = moved(s, p.id, 'capture');
    const voids = moved(s, p.id, 'void');
    const rows = { payment: p, charges, captures, voids };
    // An open payment the expiry sweeps cannot find would never expire; a settled one they still find is swept for ever.
    if (!p.due_ok) v('d', 'expiry deadline disagrees with the payment', `${p.id} ${p.status}`, rows);
    if (charges.length > 1) v('a', 'payment charged twice', `${p.id}: ${charges.length} charges`, rows);
    if (PAID.has(p.status) && charges.length !== 1) v('a', 'paid payment without a charge', `${p.id} ${p.status}`, rows);
    if (['failed', 'expired'].includes(p.status) && charges.length) v('a', 'unpaid payment with a charge', `${p.id} ${p.status}`, rows);
    if (p.status === 'pending' && charges.length) v('d', 'charged payment left pending', `${p.id}`, rows);
    if (captures.length > 1 || voids.length > 1 || (captures.length && voids.length)) v('a', 'authorization captured or voided twice', `${p.id}`, rows);
    if (captures.length && ['authorized', 'cancelled'].includes(p.status)) v('a', 'captured at the bank, not in the engine', `${p.id} ${p.status}`, rows);
    if (voids.length && p.status !== 'cancelled') v('a', 'voided at the bank, not in the engine', `${p.id} ${p.status}`, rows);
    const refunded = s.refunds.filter((r) => r.payment_id === p.id && r.status === 'succeeded').reduce((n, r) => n + r.amount, 0);
    if (refunded !== p.amount_refunded) v('a', 'refunded amount differs from the refunds', `${p.id}: amount_refunded ${p.amount_refunded}, refunds ${refunded}`, rows);
  }
  for (const d of s.netDrift) v('a', 'kept balance differs from its payments', `${d.currency}: kept ${d.kept}, payments ${d.summed}`, d);
  for (const d of s.heldDrift) v('a', 'held balance differs from its payouts', `${d.currency}: held ${d.kept}, payouts ${d.summed}`, d);
  for (const l of s.links) {
    const paid = [...s.payments.values()].filter((p) => p.link_id === l.id && PAID.has(p.status)).length;
    if (l.max_uses !== null && paid > l.max_uses) v('a', 'link paid beyond max_uses', `${l.id}: ${paid} paid, max_uses ${l.max_uses}`, l);
  }
  return out;
}

/** What exists under an op's key in the final state, or null when nothing does. */
export function effectOf(s: State, op: Op): unknown {
  switch (op.kind) {
    case 'payment.create':
    case 'direct.create': return [...s.payments.values()].find((p) => p.idempotency_key === op.key) ?? null;
    case 'merchant.refund':
    case 'gateway.refund': return s.refunds.find((r) => r.idempotency_key === op.key) ?? null;
    case 'payout': return s.payouts.find((r) => r.idempotency_key === op.key) ?? null;
    case 'link.create': return s.links.find((l) => l.idempotency_key === op.key) ?? null;
    // One capture or cancel op per payment (sim/workload.ts): the bank's capture or void of it is its effect.
    case 'capture': return moved(s, op.target!, 'capture')[0] ?? null;
    case 'cancel': return moved(s, op.target!, 'void')[0] ?? null;
    default: return null;
  }
}

/**
 * Why an exchange of `op` is a lie, given what exists under its key; null when it is true. A
 * "nothing happened" answer given before the effect's row was even written (another try of the key
 * wrote it later; same machine, same clock) was true when it was given.
 */
function judge(op: Op, x: Exchange, effect: unknown, t0: number): string | null {
  if (x.verdict === 'ok') {
    if (!effect) return 'answered 2xx, but nothing exists under its key';
    const id = (x.answer as { id?: unknown } | null)?.id;
    const rowId = (effect as { id?: string }).id;
    if (rowId && typeof id === 'string' && id !== rowId && !['capture', 'cancel'].includes(op.kind)) return `answered ${id}, the key holds ${rowId}`;
    return null;
  }
  if (x.verdict === 'retry' || NEUTRAL.has(x.code ?? '')) return null;
  if (!effect) return null;
  // The bank refused: the refusal is recorded under the key as a failed refund and replayed
  // (docs/retries.md), so the answer is true of that row; (a) checks that the bank moved nothing.
  if (x.code !== null && BANK_REFUSALS.has(x.code) && (effect as { status?: string }).status === 'failed') return null;
  const e = effect as { request_id?: string; created_ms?: number };
  const own = !!x.requestId && e.request_id === x.requestId;
  if (!own && e.created_ms !== undefined && e.created_ms > t0 + x.answeredMs) return null;
  return `answered ${x.status} ${x.code ?? ''} ("nothing happened"), but its key holds an effect`;
}

/** A short name of the defect class an answer belongs to, for grouping and the findings. */
export function classOf(op: Op, x: Exchange, effect: unknown = null): string {
  // The row names the request that created it: this very try committed what it calls "nothing".
  if (x.requestId && (effect as { request_id?: string } | null)?.request_id === x.requestId) return `${op.kind} ${x.status} ${x.code ?? ''} for its own committed row`;
  const before = op.exchanges.filter((y) => y.seq < x.seq && y.sentMs <= x.sentMs);
  // A refused connection reached nothing: only an answer that may have done something is an unknown outcome.
  const unknown = before.some((y) => y.verdict === 'retry' && !(y.status === 0 && String(y.answer).includes('ECONNREFUSED')));
  const twin = (x.role === 'first' || x.role === 'dup-now') && op.exchanges.some((y) => y.role === 'dup-now');
  const how = x.role === 'final' ? 'on the final same-key retry' : twin ? 'with a same-key twin at once'
    : unknown ? 'after its own unknown outcome' : before.some((y) => y.verdict === 'ok') ? "after the key's own 2xx" : `as ${x.role}`;
  return `${op.kind} ${x.status} ${x.code ?? ''} ${how}`;
}

/** (b) and (c): each answer true of the final state; a key's 2xx answered again the same; unknowns converged. */
export function checkAnswers(s: State, ops: Op[], t0: number): Violation[] {
  const out: Violation[] = [];
  for (const op of ops) {
    if (!op.key) continue;
    const effect = effectOf(s, op);
    for (const x of op.exchanges) {
      const why = judge(op, x, effect, t0);
      if (why) out.push({ check: x.role === 'final' ? 'c' : 'b', cls: classOf(op, x, effect), op, detail: `#${x.seq} ${why}`, rows: effect });
    }
    const first = firstOk(op);
    const final = op.exchanges.filter((x) => x.role === 'final').pop();
    if (!final) continue;
    if (final.verdict === 'retry') out.push({ check: 'c', cls: `${op.kind} did not converge`, op, detail: `final retry answered ${final.status} ${final.code ?? ''}`, rows: effect });
    else if (first && final.verdict === 'ok') {
      const a = first.answer as Record<string, unknown>;
      const b = final.answer as Record<string, unknown>;
      // A payment create's replay shows the payment as it is now (docs/decisions.md): only its id must hold.
      const fields = op.kind === 'capture' || op.kind === 'cancel' ? ['id', 'status']
        : op.kind === 'payment.create' || op.kind === 'direct.create' ? ['id'] : ['id', 'amount', 'currency'];
      const diff = fields.filter((f) => JSON.stringify(a?.[f]) !== JSON.stringify(b?.[f]));
      if (diff.length) out.push({ check: 'c', cls: `${op.kind} answers differently after convergence`, op, detail: `fields ${diff.join(', ')} differ from #${first.seq}`, rows: effect });
    }
  }
  return out;
}

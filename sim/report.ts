// What a run prints: one summary line, then per class of violation its count and the key-local
// history of one example (every try of that key with its answer, the rows under it, and the faults
// around it), and the command that replays the seed.
import type { Violation } from './checker.js';
import type { Exchange, History } from './history.js';
import type { RunResult } from './run.js';

const short = (v: unknown, n = 240): string => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s && s.length > n ? `${s.slice(0, n)}…` : s ?? '';
};

export function exchangeLine(x: Exchange): string {
  const body = x.answer && typeof x.answer === 'object' ? pick(x.answer as Record<string, unknown>) : x.answer;
  return `  #${x.seq} ${x.role.padEnd(9)} p${x.proc} +${x.sentMs}..${x.answeredMs}ms ${x.method} ${x.path} ${x.status || '---'} ${x.code ?? ''} ${short(body, 200)}`;
}

/** The fields of an answer that matter for the story (the whole body is too long to read). */
function pick(a: Record<string, unknown>): unknown {
  if ('error' in a) return a.error;
  const keep = ['id', 'object', 'status', 'amount', 'amount_refunded', 'refunded_amount', 'captured_amount', 'failure_code', 'error_code'];
  return Object.fromEntries(Object.entries(a).filter(([k]) => keep.includes(k)));
}

function faultsAround(h: History, fromMs: number, toMs: number): string[] {
  return h.faults.filter((f) => f.atMs >= fromMs - 8000 && f.atMs <= toMs + 1000).map((f) => `  fault +${f.atMs}ms ${f.what}`);
}

export function violationStory(h: History, v: Violation): string[] {
  const lines = [`[${v.check}] ${v.cls}: ${v.detail}`];
  if (v.op) {
    lines.push(`  op ${v.op.id} key ${v.op.key ?? '(none)'} client ${v.op.client} body ${short(v.op.body, 160)}`);
    const xs = v.op.exchanges;
    lines.push(...xs.map(exchangeLine));
    const from = Math.min(...xs.map((x) => x.sentMs));
    const to = Math.max(...xs.filter((x) => x.role !== 'final').map((x) => x.answeredMs));
    lines.push(...faultsAround(h, from, to));
  }
  if (v.rows) lines.push(`  rows ${short(v.rows, 600)}`);
  return lines;
}

/** Which of issue 22's five known lies a class of violation is, if it is one of them. */
export function knownDefect(cls: string): string {
  const [kind, , code] = cls.split(' ');
  if (code === 'service_unavailable') return '#4 ';
  if (kind === 'payout' && code === 'insufficient_balance') return '#1 ';
  if (kind === 'merchant.refund' && (code === 'refund_amount_invalid' || code === 'payment_not_payable')) return '#2 ';
  if (kind === 'gateway.refund' && code === 'refund_amount_invalid') return '#3 ';
  if ((kind === 'capture' || kind === 'cancel') && /^payment_not_(capturable|cancellable)$/.test(code ?? '')) return '#5 ';
  return '';
}

/** Violations grouped by class, most frequent first. */
export function grouped(vs: Violation[]): [string, Violation[]][] {
  const m = new Map<string, Violation[]>();
  for (const v of vs) m.set(v.cls, [...(m.get(v.cls) ?? []), v]);
  return [...m.entries()].sort((a, b) => b[1].length - a[1].length);
}

export function summary(r: RunResult): string {
  const faults = [...r.faults.entries()].map(([k, n]) => `${k}×${n}`).join(' ') || 'none';
  return `seed ${r.seed}: ${r.history.ops.length} ops, ${r.history.exchangeCount} requests, faults ${faults}; `
    + `recovery ${r.recoveredMs === null ? 'DID NOT finish' : `${r.recoveredMs} ms`}${r.heldBy ? ` (open after 5 s: ${r.heldBy})` : ''}; ${r.violations.length} violations; ${(r.ms / 1000).toFixed(1)} s`;
}

/** Per kind of op: how many, and how their tries were answered (ok / retry / unavailable / refused). */
export function opStats(h: History): string {
  const m = new Map<string, number[]>();
  for (const op of h.ops) {
    const c = m.get(op.kind) ?? [0, 0, 0, 0, 0];
    c[0]++;
    for (const x of op.exchanges) c[['ok', 'retry', 'unavailable', 'refused'].indexOf(x.verdict) + 1]++;
    m.set(op.kind, c);
  }
  return [...m].map(([k, c]) => `${k} ${c[0]} (${c[1]}/${c[2]}/${c[3]}/${c[4]})`).join(', ');
}

export function report(r: RunResult, examplesPerClass = 1): string[] {
  const lines = [summary(r), `  ops (answers ok/retry/unavailable/refused): ${opStats(r.history)}`];
  for (const [cls, vs] of grouped(r.violations)) {
    lines.push(`-- ${vs.length}× ${knownDefect(cls)}${cls}`);
    for (const v of vs.slice(0, examplesPerClass)) lines.push(...violationStory(r.history, v));
  }
  if (r.violations.length) lines.push(`replay: npm run sim -- --seed ${r.seed}${r.clients !== 6 ? ` --clients ${r.clients}` : ''}${r.seconds !== 20 ? ` --seconds ${r.seconds}` : ''}`);
  return lines;
}

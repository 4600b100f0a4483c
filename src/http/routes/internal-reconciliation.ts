// Operator endpoints (ADMIN_TOKEN) of reconciliation (issue 26):
//   GET  /internal/reconciliation/runs                  newest windows first (?limit=1-100, ?before=run id)
//   GET  /internal/reconciliation/runs/{id}             one run with its differences
//   GET  /internal/reconciliation/differences           newest first (?status=open|resolved|ignored, ?limit)
//   POST /internal/reconciliation/differences/{id}      {status: resolved|ignored|open, note}
//   POST /internal/sandbox/bank/faults                  make a difference on purpose (sandbox bank only)
import { RECONCILIATION_FIELD_CODES, SandboxBankFaultRequest, SetDifferenceStatusRequest } from '../../api/reconciliation.js';
import { compile } from '../../api/validate.js';
import { applyLedgerFault, type LedgerFault } from '../../connectors/sandbox/faults.js';
import { fail, type ApiFailure } from '../../errors.js';
import { getRun, listDifferences, listRuns, setDifferenceStatus } from '../../store/reconciliation-repo.js';
import type { Ctx } from '../context.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

const validateStatus = compile(SetDifferenceStatusRequest, RECONCILIATION_FIELD_CODES);
const validateFault = compile(SandboxBankFaultRequest, RECONCILIATION_FIELD_CODES);
const STATUSES = new Set(['open', 'resolved', 'ignored']);

function limitOf(ctx: Ctx, q: URLSearchParams): number | null {
  const limit = q.has('limit') ? Number(q.get('limit')) : 20;
  if (Number.isInteger(limit) && limit >= 1 && limit <= 100) return limit;
  sendFailure(ctx, fail('limit_invalid', 'limit'));
  return null;
}

async function runs(ctx: Ctx, s: Services) {
  const q = new URLSearchParams(ctx.query);
  const limit = limitOf(ctx, q);
  if (limit === null) return;
  const page = await listRuns(s.db, limit, q.get('before'));
  sendJson(ctx, 200, { object: 'list', data: page.data, has_more: page.hasMore, request_id: ctx.requestId });
}

async function run(ctx: Ctx, s: Services) {
  const r = await getRun(s.db, ctx.params[0]);
  if (!r) return sendFailure(ctx, fail('reconciliation_run_not_found', 'id'));
  const { difference_list, ...rest } = r;
  sendJson(ctx, 200, { ...rest, difference_list, request_id: ctx.requestId });
}

async function differences(ctx: Ctx, s: Services) {
  const q = new URLSearchParams(ctx.query);
  const limit = limitOf(ctx, q);
  if (limit === null) return;
  const status = q.get('status');
  if (status !== null && !STATUSES.has(status)) return sendFailure(ctx, fail('parameter_invalid', 'status', 'one of open, resolved, ignored'));
  sendJson(ctx, 200, { object: 'list', data: await listDifferences(s.db, status, limit), request_id: ctx.requestId });
}

async function setStatus(ctx: Ctx, s: Services, raw: unknown) {
  const v = validateStatus(raw);
  if (!v.ok) return sendFailure(ctx, v.failure);
  if (v.value.status !== 'open' && v.value.note === undefined) return sendFailure(ctx, fail('parameter_missing', 'note', 'say why the difference is resolved or ignored'));
  const d = await setDifferenceStatus(s.db, ctx.params[0], v.value.status, v.value.note ?? null);
  if (!d) return sendFailure(ctx, fail('reconciliation_difference_not_found', 'id'));
  s.log.info({ requestId: ctx.requestId, differenceId: d.id, status: d.status }, 'reconciliation difference marked');
  sendJson(ctx, 200, { ...d, request_id: ctx.requestId });
}

/** The request as a ledger fault, or the first field it lacks. */
function faultOf(b: SandboxBankFaultRequest): LedgerFault | ApiFailure {
  const need = <K extends keyof SandboxBankFaultRequest>(k: K): NonNullable<SandboxBankFaultRequest[K]> | ApiFailure =>
    b[k] === undefined ? fail('parameter_missing', k, `action ${b.action} needs ${k}`) : b[k]!;
  const extra = (allowed: string[]) => Object.keys(b).find((k) => k !== 'action' && !allowed.includes(k));
  const allowed = { add: ['kind', 'amount', 'currency', 'outcome'], lose: ['idempotency_key'], change_amount: ['idempotency_key', 'amount', 'currency'], change_outcome: ['idempotency_key', 'outcome'] }[b.action as 'add'];
  const stray = extra(allowed);
  if (stray) return fail('parameter_unknown', stray, `action ${b.action} takes ${allowed.join(', ')}`);
  if (b.action === 'add') {
    const amount = need('amount'); if (typeof amount === 'object') return amount;
    const currency = need('currency'); if (typeof currency === 'object') return currency;
    return { action: 'add', kind: b.kind ?? 'charge', amount, currency: currency.toUpperCase(), outcome: b.outcome ?? 'succeeded' };
  }
  const key = need('idempotency_key'); if (typeof key === 'object') return key;
  if (b.action === 'lose') return { action: 'lose', key };
  if (b.action === 'change_amount') {
    const amount = need('amount'); if (typeof amount === 'object') return amount;
    return { action: 'change_amount', key, amount, ...(b.currency ? { currency: b.currency.toUpperCase() } : {}) };
  }
  const outcome = need('outcome'); if (typeof outcome === 'object') return outcome;
  return { action: 'change_outcome', key, outcome };
}

async function bankFault(ctx: Ctx, s: Services, raw: unknown) {
  const v = validateFault(raw);
  if (!v.ok) return sendFailure(ctx, v.failure);
  const f = faultOf(v.value);
  if ('code' in f) return sendFailure(ctx, f);
  const entry = await applyLedgerFault(s.db, f);
  if (!entry) return sendFailure(ctx, fail('sandbox_operation_not_found', 'idempotency_key'));
  s.log.warn({ requestId: ctx.requestId, action: f.action, key: entry.key }, 'sandbox bank ledger changed on purpose (reconciliation fault helper)');
  sendJson(ctx, f.action === 'add' ? 201 : 200, {
    object: 'sandbox_bank_operation', action: f.action, idempotency_key: entry.key, operation: entry.operation, amount: entry.amount,
    currency: entry.currency, outcome: entry.outcome, recorded_at: new Date(entry.created_at).toISOString(), request_id: ctx.requestId,
  });
}

export const internalReconciliationRoutes: Route[] = [
  { method: 'GET', path: '/internal/reconciliation/runs', api: 'internal', auth: 'admin', handler: runs },
  { method: 'GET', path: '/internal/reconciliation/runs/:id', api: 'internal', auth: 'admin', handler: run },
  { method: 'GET', path: '/internal/reconciliation/differences', api: 'internal', auth: 'admin', handler: differences },
  { method: 'POST', path: '/internal/reconciliation/differences/:id', api: 'internal', auth: 'admin', body: true, handler: setStatus },
  { method: 'POST', path: '/internal/sandbox/bank/faults', api: 'internal', auth: 'admin', body: true, handler: bankFault },
];

// GET /api/v2/payments: newest first, cursor pagination (starting_after = next_cursor).
import { toMerchantPayment } from '../../api/merchant-payment-view.js';
import { parseDateBound } from '../../domain/date-filter.js';
import { MERCHANT_PAYMENT_STATUSES, storedStatusesOf, type MerchantPaymentStatus } from '../../domain/payment.js';
import { fail, type ApiFailure } from '../../errors.js';
import { cursorOf, listPayments, type ListQuery } from '../../store/payments-repo.js';
import type { Principal } from '../auth.js';
import type { Ctx } from '../context.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Services } from '../services.js';

const KNOWN = new Set(['limit', 'status', 'order_id', 'from', 'to', 'starting_after']);

export function parseListQuery(query: string): Omit<ListQuery, 'merchantId' | 'livemode' | 'startingAfter'> & { startingAfter?: string } | ApiFailure {
  const q = new URLSearchParams(query);
  for (const k of q.keys()) if (!KNOWN.has(k)) return fail('parameter_unknown', k);
  let limit = 25;
  if (q.has('limit')) {
    const raw = q.get('limit')!;
    limit = /^\d{1,3}$/.test(raw) ? Number(raw) : NaN;
    if (!(limit >= 1 && limit <= 100)) return fail('limit_invalid', 'limit');
  }
  const out: ReturnType<typeof parseListQuery> = { limit };
  if (q.has('status')) {
    const st = q.get('status')!;
    // Only the merchant API's seven statuses; each matches the stored statuses it stands for.
    if (!(MERCHANT_PAYMENT_STATUSES as readonly string[]).includes(st)) return fail('status_invalid', 'status');
    out.statuses = storedStatusesOf(st as MerchantPaymentStatus);
  }
  if (q.has('order_id')) {
    const o = q.get('order_id')!;
    if (o.length < 1 || o.length > 128) return fail('order_id_invalid', 'order_id');
    out.orderId = o;
  }
  for (const name of ['from', 'to'] as const) {
    if (!q.has(name)) continue;
    const b = parseDateBound(q.get(name)!);
    if (!b) return fail('date_invalid', name);
    if (name === 'from') out.from = b.start; else out.to = b.end;
  }
  if (out.from !== undefined && out.to !== undefined && out.to <= out.from) return fail('date_invalid', 'to', 'to is before from');
  if (q.has('starting_after')) {
    const c = q.get('starting_after')!;
    if (c.length < 1 || c.length > 64) return fail('cursor_invalid', 'starting_after');
    out.startingAfter = c;
  }
  return out;
}

export async function listPaymentsHandler(ctx: Ctx, s: Services): Promise<void> {
  const who = ctx.auth as Principal;
  const parsed = parseListQuery(ctx.query);
  if ('code' in parsed) return sendFailure(ctx, parsed);
  let startingAfter: ListQuery['startingAfter'];
  if (parsed.startingAfter) {
    const c = await cursorOf(s.db, who.merchant.id, who.livemode, parsed.startingAfter);
    if (!c) return sendFailure(ctx, fail('cursor_invalid', 'starting_after'));
    startingAfter = c;
  }
  const { payments, hasMore } = await listPayments(s.db, { ...parsed, startingAfter, merchantId: who.merchant.id, livemode: who.livemode });
  sendJson(ctx, 200, {
    object: 'list',
    data: payments.map((p) => toMerchantPayment(p, s.config.publicBaseUrl, ctx.requestId)),
    has_more: hasMore,
    next_cursor: hasMore ? payments[payments.length - 1].id : null,
    request_id: ctx.requestId,
  });
}

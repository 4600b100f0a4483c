// SQL for payment links. Every change is one statement checked against the row's version; the
// settling of a link payment is written by the payment's own update (payments-repo, UPDATE_SQL).
import type pg from 'pg';
import type { Link } from '../domain/link.js';
import { columns } from './columns.js';
import { isoOrNull } from '../domain/instant.js';

interface LinkRow {
  id: string; merchant_id: string; livemode: boolean; type: string; amount: string | number | null; currency: string;
  description: string | null; max_uses: number | null; uses: number; holds: Record<string, number>; expires_at: Date | null;
  active: boolean; created_at: Date; updated_at: Date; version: number; request_id: string; idempotency_key: string | null;
  request_hash: string | null; cursor?: string; test_clock_id?: string | null;
}

const ms = (d: Date | null): number | null => (d === null ? null : d.getTime());

export function rowToLink(r: LinkRow): Link {
  return {
    id: r.id, merchantId: r.merchant_id, livemode: r.livemode, type: r.type as Link['type'],
    amount: r.amount === null ? null : Number(r.amount), currency: r.currency, description: r.description, maxUses: r.max_uses,
    uses: r.uses, holds: r.holds ?? {}, expiresAt: ms(r.expires_at), active: r.active, createdAt: r.created_at.getTime(),
    updatedAt: r.updated_at.getTime(), version: r.version, requestId: r.request_id, idempotencyKey: r.idempotency_key, requestHash: r.request_hash,
    testClockId: r.test_clock_id ?? null,
  };
}

/** Inserts a new link; 'existing' with the link holding the idempotency key when it is taken. */
export async function insertLink(db: pg.Pool, l: Link): Promise<{ kind: 'created' | 'existing'; link: Link }> {
  const res = await db.query({
    name: 'link_insert',
    text: `INSERT INTO links (id, merchant_id, livemode, type, amount, currency, description, max_uses, uses, holds, expires_at, active,
             created_at, updated_at, version, request_id, idempotency_key, request_hash, test_clock_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, '{}', $9, true, $10, $10, 1, $11, $12, $13, $14)
           ON CONFLICT (merchant_id, livemode, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING RETURNING id`,
    values: [l.id, l.merchantId, l.livemode, l.type, l.amount, l.currency, l.description, l.maxUses, isoOrNull(l.expiresAt), isoOrNull(l.createdAt),
      l.requestId, l.idempotencyKey, l.requestHash, l.testClockId ?? null],
  });
  if (res.rowCount === 1) return { kind: 'created', link: l };
  const existing = await findLinkByIdempotencyKey(db, l.merchantId, l.livemode, l.idempotencyKey!);
  if (!existing) throw new Error('idempotent link insert conflicted but no row holds the key');
  return { kind: 'existing', link: existing };
}

export async function findLink(db: pg.Pool, id: string): Promise<Link | null> {
  const res = await db.query<LinkRow>({ name: 'link_by_id', text: `SELECT ${columns('links')} FROM links WHERE id = $1`, values: [id] });
  return res.rows[0] ? rowToLink(res.rows[0]) : null;
}

export async function findLinkByIdempotencyKey(db: pg.Pool, merchantId: string, livemode: boolean, key: string): Promise<Link | null> {
  const res = await db.query<LinkRow>({
    name: 'link_by_idem', text: `SELECT ${columns('links')} FROM links WHERE merchant_id = $1 AND livemode = $2 AND idempotency_key = $3`, values: [merchantId, livemode, key],
  });
  return res.rows[0] ? rowToLink(res.rows[0]) : null;
}

/** Writes the link's holds and active flag if the row still has `expectedVersion`. False on a conflict. */
export async function updateLink(db: pg.Pool, next: Link, expectedVersion: number): Promise<boolean> {
  const res = await db.query({
    name: 'link_update',
    text: 'UPDATE links SET holds = $3, active = $4, updated_at = $5, version = $6 WHERE id = $1 AND version = $2',
    values: [next.id, expectedVersion, JSON.stringify(next.holds), next.active, isoOrNull(next.updatedAt), next.version],
  });
  return res.rowCount === 1;
}

/** Which of these payment ids exist (a hold whose payment exists is never stale). */
export async function existingPayments(db: pg.Pool, ids: string[]): Promise<Set<string>> {
  const res = await db.query({ name: 'payments_exist', text: 'SELECT id FROM payments WHERE id = ANY($1::text[])', values: [ids] });
  return new Set(res.rows.map((r) => r.id as string));
}

export interface LinkListQuery { merchantId: string; livemode: boolean; limit: number; startingAfter?: { createdAt: string; id: string } }

/** Newest first; the cursor is the (created_at, id) of the last link of the previous page. */
export async function listLinks(db: pg.Pool, q: LinkListQuery): Promise<{ links: Link[]; hasMore: boolean }> {
  const values: unknown[] = [q.merchantId, q.livemode, q.limit + 1];
  let after = '';
  if (q.startingAfter) {
    values.push(q.startingAfter.createdAt, q.startingAfter.id);
    after = 'AND (created_at, id) < ($4::timestamptz, $5)';
  }
  const res = await db.query<LinkRow>(
    `SELECT * FROM links WHERE merchant_id = $1 AND livemode = $2 ${after} ORDER BY created_at DESC, id DESC LIMIT $3`, values);
  const rows = res.rows.map(rowToLink);
  return { links: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}

/** The exact created_at text of a link, for a cursor that must not lose microseconds. */
export async function linkCursorOf(db: pg.Pool, merchantId: string, livemode: boolean, id: string): Promise<{ createdAt: string; id: string } | null> {
  const res = await db.query(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS c FROM links WHERE id = $1 AND merchant_id = $2 AND livemode = $3`,
    [id, merchantId, livemode]);
  return res.rows[0] ? { createdAt: res.rows[0].c, id } : null;
}

/** Idempotency keys live 24 hours: after that the same key may create a new link. */
export async function releaseOldLinkIdempotencyKeys(db: pg.Pool, ttlSeconds: number, limit: number): Promise<number> {
  const res = await db.query(
    `UPDATE links SET idempotency_key = NULL WHERE id IN (
       SELECT id FROM links WHERE idempotency_key IS NOT NULL AND created_at < now() - make_interval(secs => $1)
       LIMIT $2 FOR UPDATE SKIP LOCKED)`, [ttlSeconds, limit]);
  return res.rowCount ?? 0;
}

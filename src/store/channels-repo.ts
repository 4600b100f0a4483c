// SQL for gateway channels. Field changes are conditional on the row's version (optimistic
// concurrency); promote-default and hard delete run in one short transaction holding row locks.
import type pg from 'pg';
import type { Branding, Channel, ChannelRef, ChannelReferences, ChannelStatus } from '../domain/channel.js';
import { prefixedId } from '../domain/ids.js';
import { newSecret } from './webhooks-repo.js';
import { columns } from './columns.js';

interface ChannelRow {
  id: string; uuid: string; merchant_id: string; livemode: boolean; slug: string; name: string; status: ChannelStatus;
  is_default: boolean; branding: Branding; webhook_url: string | null; webhook_secret: string;
  previous_webhook_secret: string | null; previous_secret_expires_at: Date | null; currencies: string[];
  created_at: Date; updated_at: Date; deleted_at: Date | null; version: number;
}

const ms = (d: Date | null) => (d ? d.getTime() : null);

export const toChannel = (r: ChannelRow): Channel => ({
  id: r.id, uuid: r.uuid, merchantId: r.merchant_id, livemode: r.livemode, slug: r.slug, name: r.name, status: r.status,
  isDefault: r.is_default, branding: r.branding, webhookUrl: r.webhook_url, webhookSecret: r.webhook_secret,
  previousWebhookSecret: r.previous_webhook_secret, previousSecretExpiresAt: ms(r.previous_secret_expires_at),
  currencies: r.currencies, createdAt: r.created_at.getTime(), updatedAt: r.updated_at.getTime(), deletedAt: ms(r.deleted_at),
  version: r.version,
});

export const channelId = (): string => prefixedId('ch', 20);

export interface Scope { merchantId: string; livemode: boolean }

const COLUMN: Record<ChannelRef['by'], string> = { id: 'id', uuid: 'uuid::text', slug: 'slug' };

export async function findChannel(db: pg.Pool | pg.PoolClient, scope: Scope, ref: ChannelRef, lock = ''): Promise<Channel | null> {
  const res = await db.query<ChannelRow>(
    `SELECT * FROM channels WHERE merchant_id = $1 AND livemode = $2 AND ${COLUMN[ref.by]} = $3 ${lock}`,
    [scope.merchantId, scope.livemode, ref.value]);
  return res.rows[0] ? toChannel(res.rows[0]) : null;
}

/** The default channels of many merchants and modes, in one statement, by `scopeKey`. */
export async function defaultChannelsOf(db: pg.Pool, scopes: Scope[]): Promise<Map<string, Channel>> {
  const res = await db.query<ChannelRow>({
    name: 'channels_default',
    text: `SELECT ${columns('channels', 'c')} FROM unnest($1::text[], $2::boolean[]) AS s(merchant_id, livemode) JOIN channels c ON c.merchant_id = s.merchant_id AND c.livemode = s.livemode AND c.is_default`,
    values: [scopes.map((x) => x.merchantId), scopes.map((x) => x.livemode)],
  });
  return new Map(res.rows.map((r) => [scopeKey({ merchantId: r.merchant_id, livemode: r.livemode }), toChannel(r)]));
}

/** A merchant and mode as one string (a grouped read's key), and back. */
export const scopeKey = (s: Scope): string => `${s.livemode ? 'live' : 'test'}:${s.merchantId}`;
export const scopeOfKey = (k: string): Scope => ({ livemode: k.startsWith('live:'), merchantId: k.slice(5) });

export async function listChannels(db: pg.Pool, scope: Scope, o: { status?: ChannelStatus; only?: string | null }): Promise<Channel[]> {
  const res = await db.query<ChannelRow>(
    `SELECT * FROM channels WHERE merchant_id = $1 AND livemode = $2 AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR id = $4)
     ORDER BY created_at, id LIMIT 1000`,
    [scope.merchantId, scope.livemode, o.status ?? null, o.only ?? null]);
  return res.rows.map(toChannel);
}

export interface NewChannel { slug: string; name: string; branding: Branding; webhookUrl: string | null; currencies: string[] }

/** Inserts a channel; null when the slug is taken in this merchant and mode. */
export async function insertChannel(db: pg.Pool, scope: Scope, c: NewChannel): Promise<Channel | null> {
  const res = await db.query<ChannelRow>(
    `INSERT INTO channels (id, merchant_id, livemode, slug, name, branding, webhook_url, webhook_secret, currencies)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (merchant_id, livemode, slug) DO NOTHING RETURNING *`,
    [channelId(), scope.merchantId, scope.livemode, c.slug, c.name, c.branding, c.webhookUrl, newSecret(), c.currencies]);
  return res.rows[0] ? toChannel(res.rows[0]) : null;
}

export type ChannelChange = Partial<Pick<Channel, 'slug' | 'name' | 'branding' | 'webhookUrl' | 'currencies' | 'status' | 'deletedAt'>>;

const CHANGE_COLUMNS: Record<keyof ChannelChange, string> = {
  slug: 'slug', name: 'name', branding: 'branding', webhookUrl: 'webhook_url', currencies: 'currencies', status: 'status', deletedAt: 'deleted_at',
};

/**
 * Writes a change if the row is still at `version`: the new row, 'conflict' (reload and retry),
 * or 'slug_taken'. The default-must-be-active CHECK backs the domain rule up.
 */
export async function updateChannel(db: pg.Pool, c: Channel, change: ChannelChange): Promise<Channel | 'conflict' | 'slug_taken'> {
  const sets: string[] = [];
  const values: unknown[] = [c.id, c.version];
  for (const [k, col] of Object.entries(CHANGE_COLUMNS) as [keyof ChannelChange, string][]) {
    if (change[k] === undefined) continue;
    const v = change[k];
    values.push(k === 'deletedAt' ? (v === null ? null : new Date(v as number)) : v);
    sets.push(`${col} = $${values.length}`);
  }
  if (sets.length === 0) return c; // nothing to change: no new version
  try {
    const res = await db.query<ChannelRow>(
      `UPDATE channels SET ${[...sets, 'updated_at = now()', 'version = version + 1'].join(', ')} WHERE id = $1 AND version = $2 RETURNING *`, values);
    return res.rows[0] ? toChannel(res.rows[0]) : 'conflict';
  } catch (err) {
    if ((err as { constraint?: string }).constraint === 'channels_slug') return 'slug_taken';
    throw err;
  }
}

/** A new webhook secret; the old one keeps signing alongside for `graceSeconds`. */
export async function rotateChannelSecret(db: pg.Pool, c: Channel, graceSeconds: number): Promise<Channel | 'conflict'> {
  const res = await db.query<ChannelRow>(
    `UPDATE channels SET previous_webhook_secret = webhook_secret, previous_secret_expires_at = now() + make_interval(secs => $3),
       webhook_secret = $4, updated_at = now(), version = version + 1 WHERE id = $1 AND version = $2 RETURNING *`,
    [c.id, c.version, graceSeconds, newSecret()]);
  return res.rows[0] ? toChannel(res.rows[0]) : 'conflict';
}

async function inTransaction<T>(db: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Makes `target` the default of its merchant and mode, atomically. All the merchant's channels of
 * that mode are locked in id order first, so concurrent promotions (and pauses or deletes, which
 * are version-checked) serialise: exactly one default remains, whoever wins.
 */
export async function promoteDefault(db: pg.Pool, scope: Scope, targetId: string): Promise<Channel | 'not_found' | 'not_active'> {
  return inTransaction(db, async (client) => {
    const rows = (await client.query<ChannelRow>(
      'SELECT * FROM channels WHERE merchant_id = $1 AND livemode = $2 ORDER BY id FOR UPDATE', [scope.merchantId, scope.livemode])).rows;
    const target = rows.find((r) => r.id === targetId);
    if (!target) return 'not_found';
    if (target.is_default) return toChannel(target);
    if (target.status !== 'active') return 'not_active';
    await client.query(
      'UPDATE channels SET is_default = false, updated_at = now(), version = version + 1 WHERE merchant_id = $1 AND livemode = $2 AND is_default',
      [scope.merchantId, scope.livemode]);
    const res = await client.query<ChannelRow>(
      'UPDATE channels SET is_default = true, updated_at = now(), version = version + 1 WHERE id = $1 RETURNING *', [targetId]);
    return toChannel(res.rows[0]);
  });
}

const REFERENCES_SQL = `SELECT
  (SELECT count(*) FROM api_keys WHERE channel_id = $1 AND revoked_at IS NULL)::int AS api_keys,
  (SELECT count(*) FROM webhook_settings WHERE channel_id = $1)::int AS webhook_settings,
  (SELECT count(*) FROM payments WHERE channel_id = $1)::int AS transactions`;

/**
 * Deletes the channel for good unless something references it: the references (nothing deleted)
 * or 'deleted'. The row is locked first, so a key or payment naming it cannot slip in between the
 * count and the delete (their foreign keys wait for the lock, then fail).
 */
export async function hardDeleteChannel(db: pg.Pool, c: Channel, allowed: (refs: ChannelReferences) => boolean):
  Promise<{ deleted: true } | { deleted: false; refs: ChannelReferences | null }> {
  return inTransaction(db, async (client) => {
    const locked = await client.query<ChannelRow>('SELECT * FROM channels WHERE id = $1 FOR UPDATE', [c.id]);
    if (!locked.rows[0] || locked.rows[0].is_default) return { deleted: false, refs: null };
    const refs = (await client.query<ChannelReferences & Record<string, number>>(REFERENCES_SQL, [c.id])).rows[0];
    if (!allowed(refs)) return { deleted: false, refs };
    // Revoked keys keep their other fields; the channel they named is gone.
    await client.query('UPDATE api_keys SET channel_id = NULL WHERE channel_id = $1 AND revoked_at IS NOT NULL', [c.id]);
    await client.query('DELETE FROM channels WHERE id = $1', [c.id]);
    return { deleted: true };
  });
}

/** The channel's own webhook for gateway target resolution (src/domain/webhook-target.ts). */
export function channelHook(c: Channel, now: number): { url: string; secrets: string[] } | null {
  if (!c.webhookUrl) return null;
  const secrets = [c.webhookSecret];
  if (c.previousWebhookSecret && c.previousSecretExpiresAt && c.previousSecretExpiresAt > now) secrets.push(c.previousWebhookSecret);
  return { url: c.webhookUrl, secrets };
}

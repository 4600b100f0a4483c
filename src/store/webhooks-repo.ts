// SQL for webhook settings, deliveries and attempts.
import type pg from 'pg';
import { eventId, prefixedId, randomString } from '../domain/ids.js';
import { due, nowOf } from './test-clocks-repo.js';
import { isoInstant } from '../domain/instant.js';

export interface WebhookSettings {
  id: string; merchantId: string; api: 'merchant' | 'gateway'; channelId: string | null; url: string; events: string[] | null;
  secret: string; previousSecret: string | null; previousExpiresAt: number | null; createdAt: number; updatedAt: number;
}

interface SettingsRow {
  id: string; merchant_id: string; api: 'merchant' | 'gateway'; channel_id: string | null; url: string; events: string[] | null;
  secret: string; previous_secret: string | null; previous_expires_at: Date | string | null; created_at: Date | string; updated_at: Date | string;
}

const ms = (v: Date | string | null): number | null => (v === null ? null : v instanceof Date ? v.getTime() : Date.parse(v));

export const toSettings = (r: SettingsRow): WebhookSettings => ({
  id: r.id, merchantId: r.merchant_id, api: r.api, channelId: r.channel_id, url: r.url, events: r.events, secret: r.secret,
  previousSecret: r.previous_secret, previousExpiresAt: ms(r.previous_expires_at), createdAt: ms(r.created_at)!, updatedAt: ms(r.updated_at)!,
});

export const newSecret = (): string => `whsec_${randomString('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 32)}`;

/** Secrets that sign now: the current one, and the previous one during its rotation window. */
export const activeSecrets = (s: Pick<WebhookSettings, 'secret' | 'previousSecret' | 'previousExpiresAt'>, now: number): string[] =>
  s.previousSecret && s.previousExpiresAt !== null && s.previousExpiresAt > now ? [s.secret, s.previousSecret] : [s.secret];

/** Creates the row for (merchant, api, channel) or updates its url and events; the secret stays. */
export async function upsertSettings(db: pg.Pool, v: { merchantId: string; api: string; channelId: string | null; url: string; events: string[] | null }): Promise<{ settings: WebhookSettings; created: boolean }> {
  const res = await db.query<SettingsRow & { inserted: boolean }>(`
INSERT INTO webhook_settings (id, merchant_id, api, channel_id, url, events, secret)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (merchant_id, api, COALESCE(channel_id, '')) DO UPDATE SET url = EXCLUDED.url, events = EXCLUDED.events, updated_at = now()
RETURNING *, (xmax = 0) AS inserted`, [prefixedId('whs', 16), v.merchantId, v.api, v.channelId, v.url, v.events, newSecret()]);
  return { settings: toSettings(res.rows[0]), created: res.rows[0].inserted };
}

export async function listSettings(db: pg.Pool, merchantId: string): Promise<WebhookSettings[]> {
  const res = await db.query<SettingsRow>('SELECT * FROM webhook_settings WHERE merchant_id = $1 ORDER BY api, channel_id NULLS FIRST', [merchantId]);
  return res.rows.map(toSettings);
}

export async function findSettings(db: pg.Pool, merchantId: string, api: string, channelId: string | null): Promise<WebhookSettings | null> {
  const res = await db.query<SettingsRow>(
    'SELECT * FROM webhook_settings WHERE merchant_id = $1 AND api = $2 AND COALESCE(channel_id, \'\') = COALESCE($3, \'\')', [merchantId, api, channelId]);
  return res.rows[0] ? toSettings(res.rows[0]) : null;
}

/**
 * Removes one settings row of the merchant; true when it existed. Deliveries already queued to it
 * keep their rows (settings_id becomes null) and fail as no_endpoint on their retry schedule.
 */
export async function deleteSettings(db: pg.Pool, merchantId: string, id: string): Promise<boolean> {
  const res = await db.query('DELETE FROM webhook_settings WHERE id = $1 AND merchant_id = $2', [id, merchantId]);
  return (res.rowCount ?? 0) > 0;
}

/** A new secret; the old one keeps signing (alongside) for `graceSeconds`. */
export async function rotateSecret(db: pg.Pool, id: string, graceSeconds: number): Promise<WebhookSettings> {
  const res = await db.query<SettingsRow>(`
UPDATE webhook_settings SET previous_secret = secret, previous_expires_at = now() + make_interval(secs => $3),
  secret = $2, updated_at = now() WHERE id = $1 RETURNING *`, [id, newSecret(), graceSeconds]);
  return toSettings(res.rows[0]);
}

/**
 * Writes an event and one delivery to the given settings row, due `dueInMs` after Postgres's now
 * (default: at once). The operator's test ping is written due a few seconds ahead and attempted at
 * once by id, so that the process answering the operator makes the first attempt (another takes
 * over if it cannot).
 */
export async function insertEventWithDelivery(db: pg.Pool, e: { merchantId: string; livemode: boolean; api: string; type: string; aggregateId: string; data: unknown; settingsId: string; dueInMs?: number }): Promise<{ eventId: string; deliveryId: string }> {
  const evt = eventId();
  const dlv = prefixedId('dlv', 24);
  await db.query(`
WITH ev AS (
  INSERT INTO events (id, merchant_id, livemode, api, type, aggregate_id, data, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, now()) RETURNING id
)
INSERT INTO webhook_deliveries (id, event_id, merchant_id, settings_id, api, status, next_attempt_at, created_at, updated_at)
SELECT $8, ev.id, $2, $9, $4, 'pending', now() + make_interval(secs => $10::float8 / 1000), now(), now() FROM ev`,
  [evt, e.merchantId, e.livemode, e.api, e.type, e.aggregateId, JSON.stringify(e.data), dlv, e.settingsId, e.dueInMs ?? 0]);
  return { eventId: evt, deliveryId: dlv };
}

/** New deliveries of an existing event to every settings row of its API that wants it. */
export async function resendEvent(db: pg.Pool, merchantId: string, evt: string): Promise<string[]> {
  const res = await db.query(`
INSERT INTO webhook_deliveries (id, event_id, merchant_id, settings_id, api, status, next_attempt_at, created_at, updated_at)
SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), e.id, e.merchant_id, ws.id, e.api, 'pending', now(), now(), now()
FROM events e JOIN webhook_settings ws ON ws.merchant_id = e.merchant_id AND ws.api = e.api AND ws.channel_id IS NULL
  AND (ws.events IS NULL OR e.type = ANY(ws.events) OR e.type = 'test.ping')
WHERE e.id = $2 AND e.merchant_id = $1
RETURNING id`, [merchantId, evt]);
  return res.rows.map((r) => r.id as string);
}

export interface ClaimedDelivery {
  id: string; eventId: string; merchantId: string; api: 'merchant' | 'gateway'; attempt: number; targetUrl: string | null;
  settings: WebhookSettings | null;
  /**
   * When the delivery was written (Postgres's clock): for the deliveries an outcome queues, the
   * moment its statement wrote them, just before that statement's commit; for a resend or a test
   * ping, the operator's request. The latency metrics count from it; null for a delivery on a test
   * clock, whose due times are the clock's, not time that passed.
   */
  queuedAt: number | null;
  event: { id: string; type: string; livemode: boolean; createdAt: number; aggregateId: string; data: Record<string, unknown> };
}

// Due times and leases are Postgres's time (now()), never a process's clock: processes whose clocks
// drift apart still agree on what is due and whose lease ran out. A delivery of an event of an object
// on a test clock is due, and retried, on that clock's time (its lease stays on Postgres's time).
// Candidates: the earliest due pending deliveries and the earliest whose lease ran out, each read in
// the order of its own partial index and cut at four times the claim, so that a claim costs the same
// with ten or a hundred thousand deliveries waiting (one scan of both indexes under an OR read every
// due row and sorted them all: docs/decisions.md, "The webhook claim reads and locks what it takes");
// or, for an attempt by id, that one delivery. At most `room` per endpoint are taken from them: the
// room the dispatcher gives for an endpoint it has in flight or has widened (its bound less what it
// has in flight there), the starting bound for any other. Only the rows taken are locked (SKIP
// LOCKED: another thread or process may be claiming them), each checked again under its lock; the
// rest of the candidates are left untouched.
const claimable = (d: string): string =>
  `(${d}status = 'pending' AND (${due(`${d}next_attempt_at`, `${d}test_clock_id`)} OR $7::boolean)) OR (${d}status = 'delivering' AND ${d}lease_until < now())`;
export const CLAIM_SQL = `
WITH cand AS (
  (SELECT id, settings_id, next_attempt_at FROM webhook_deliveries
   WHERE $4::text IS NULL AND status = 'pending' AND ${due('next_attempt_at', 'webhook_deliveries.test_clock_id')}
   ORDER BY next_attempt_at LIMIT $1 * 4)
  UNION ALL
  (SELECT id, settings_id, next_attempt_at FROM webhook_deliveries
   WHERE $4::text IS NULL AND status = 'delivering' AND lease_until < now()
   ORDER BY lease_until LIMIT $1 * 4)
  UNION ALL
  SELECT id, settings_id, next_attempt_at FROM webhook_deliveries l WHERE l.id = $4 AND (${claimable('l.')})
), pick AS (
  SELECT x.id FROM (
    SELECT id, settings_id, next_attempt_at, row_number() OVER (PARTITION BY settings_id ORDER BY next_attempt_at) AS rn FROM cand
  ) x LEFT JOIN unnest($3::text[], $5::int[]) AS b(sid, n) ON b.sid = x.settings_id
  WHERE x.settings_id IS NULL OR x.rn <= COALESCE(b.n, $6)
  ORDER BY x.next_attempt_at LIMIT $1
), taken AS (
  -- Locked by id alone, and checked in the select list, which is computed again on the version the lock
  -- finds: a condition here could let the planner read the due rows through their indexes instead.
  SELECT l.id, (${claimable('l.')}) AS still FROM pick JOIN webhook_deliveries l ON l.id = pick.id
  FOR UPDATE OF l SKIP LOCKED
)
UPDATE webhook_deliveries d SET status = 'delivering', attempts = d.attempts + 1,
  lease_until = now() + make_interval(secs => $2::float8 / 1000), updated_at = now()
FROM taken WHERE d.id = taken.id AND taken.still
RETURNING d.id, d.event_id, d.merchant_id, d.api, d.attempts, d.target_url, d.created_at, d.test_clock_id,
  (SELECT to_jsonb(s) FROM webhook_settings s WHERE s.id = d.settings_id) AS settings,
  (SELECT jsonb_build_object('id', e.id, 'type', e.type, 'livemode', e.livemode, 'created_at', e.created_at, 'aggregate_id', e.aggregate_id, 'data', e.data)
     FROM events e WHERE e.id = d.event_id) AS event`;

/**
 * Leases due deliveries (and those whose lease ran out: their process died mid-attempt): per
 * endpoint at most its entry of `rooms` (settings id → requests it may start now), or `perEndpoint`
 * for an endpoint with no entry. Safe across threads and processes (SKIP LOCKED).
 */
export async function claimDeliveries(db: pg.Pool, o: { limit: number; leaseMs: number; rooms: Map<string, number>; perEndpoint: number; only?: string; force?: boolean }): Promise<ClaimedDelivery[]> {
  const res = await db.query({
    name: 'webhook_claim', text: CLAIM_SQL,
    values: [o.limit, o.leaseMs, [...o.rooms.keys()], o.only ?? null, [...o.rooms.values()], o.perEndpoint,
      o.only !== undefined && o.force === true],
  });
  return res.rows.map((r) => ({
    id: r.id, eventId: r.event_id, merchantId: r.merchant_id, api: r.api, attempt: r.attempts, targetUrl: r.target_url,
    settings: r.settings ? toSettings(r.settings) : null,
    queuedAt: r.test_clock_id ? null : ms(r.created_at)!,
    event: { id: r.event.id, type: r.event.type, livemode: r.event.livemode, createdAt: Date.parse(r.event.created_at), aggregateId: r.event.aggregate_id, data: r.event.data },
  }));
}

export interface AttemptRecord {
  deliveryId: string; attempt: number; startedAt: number; durationMs: number; statusCode: number | null; error: string | null;
  /** The delivery's next state; a retry is due `delayMs` after Postgres's now (its test clock's time, when on one). */
  next: { status: string; delayMs?: number };
}

/**
 * Records attempts and their deliveries' next states, many in one statement (the dispatcher groups
 * the attempts that end together): true for each one recorded, false where another process took
 * the delivery over (its lease ran out) and the attempt is not this process's to record.
 */
export async function recordAttempts(db: pg.Pool, rs: AttemptRecord[]): Promise<boolean[]> {
  const res = await db.query<{ id: string; attempt: number }>({
    name: 'webhook_record',
    text: `
WITH x AS (
  SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[], $8::float8[])
    AS x(delivery_id, attempt, started_at, duration_ms, status_code, error, status, delay_ms)
), att AS (
  INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error)
  SELECT delivery_id, attempt, started_at, duration_ms, status_code, error FROM x ON CONFLICT DO NOTHING
)
UPDATE webhook_deliveries d SET status = x.status,
  next_attempt_at = COALESCE(${nowOf('d.test_clock_id')} + make_interval(secs => x.delay_ms / 1000), d.next_attempt_at),
  lease_until = NULL, last_status = x.status_code, last_error = x.error, updated_at = now()
FROM x WHERE d.id = x.delivery_id AND d.attempts = x.attempt AND d.status = 'delivering'
RETURNING d.id, x.attempt`,
    values: [
      rs.map((a) => a.deliveryId), rs.map((a) => a.attempt), rs.map((a) => isoInstant(a.startedAt)), rs.map((a) => a.durationMs),
      rs.map((a) => a.statusCode), rs.map((a) => a.error), rs.map((a) => a.next.status), rs.map((a) => a.next.delayMs ?? null),
    ],
  });
  const done = new Set(res.rows.map((r) => `${r.id}\0${r.attempt}`));
  return rs.map((a) => done.has(`${a.deliveryId}\0${a.attempt}`));
}

export async function listEvents(db: pg.Pool, merchantId: string, limit: number, type?: string): Promise<Record<string, unknown>[]> {
  const res = await db.query(`
SELECT e.id, e.type, e.api, e.livemode, e.aggregate_id, e.created_at,
  (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries,
  (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'succeeded') AS delivered
FROM events e WHERE e.merchant_id = $1 AND ($3::text IS NULL OR e.type = $3)
ORDER BY e.created_at DESC, e.id DESC LIMIT $2`, [merchantId, limit, type ?? null]);
  return res.rows;
}

export async function eventExists(db: pg.Pool, merchantId: string, evt: string): Promise<boolean> {
  const res = await db.query('SELECT 1 FROM events WHERE id = $1 AND merchant_id = $2', [evt, merchantId]);
  return res.rowCount === 1;
}

export async function listDeliveries(db: pg.Pool, merchantId: string, evt: string): Promise<Record<string, unknown>[]> {
  const res = await db.query(`
SELECT d.id, d.status, d.attempts, d.next_attempt_at, d.last_status, d.last_error, d.created_at, d.settings_id,
  COALESCE((SELECT jsonb_agg(jsonb_build_object('attempt', a.attempt, 'started_at', a.started_at, 'duration_ms', a.duration_ms,
    'status_code', a.status_code, 'error', a.error) ORDER BY a.attempt) FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]') AS attempts_log
FROM webhook_deliveries d WHERE d.event_id = $1 AND d.merchant_id = $2 ORDER BY d.created_at`, [evt, merchantId]);
  return res.rows;
}

/** What gateway target resolution needs for a session's event: its channel's hook and slug, and the merchant's gateway rows. */
export interface GatewayTargetContext {
  channel: { slug: string; url: string | null; secrets: string[] } | null;
  rows: { id: string; channelId: string | null; url: string; secrets: string[]; events: string[] | null }[];
}

export async function gatewayTargetContext(db: pg.Pool, merchantId: string, channelId: string | null, now: number): Promise<GatewayTargetContext> {
  const [ch, rows] = await Promise.all([
    channelId
      ? db.query('SELECT slug, webhook_url, webhook_secret, previous_webhook_secret, previous_secret_expires_at FROM channels WHERE id = $1', [channelId])
      : null,
    db.query<SettingsRow>("SELECT * FROM webhook_settings WHERE merchant_id = $1 AND api = 'gateway'", [merchantId]),
  ]);
  const c = ch?.rows[0];
  const prevOk = c?.previous_webhook_secret && c.previous_secret_expires_at && new Date(c.previous_secret_expires_at).getTime() > now;
  return {
    channel: c ? { slug: c.slug, url: c.webhook_url, secrets: prevOk ? [c.webhook_secret, c.previous_webhook_secret] : [c.webhook_secret] } : null,
    rows: rows.rows.map(toSettings).map((r) => ({ id: r.id, channelId: r.channelId, url: r.url, secrets: activeSecrets(r, now), events: r.events })),
  };
}

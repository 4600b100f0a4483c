// Shared pieces of the hostile-input tests: a client that sends exact bytes with a one-second
// deadline, the envelope check per API, and a fingerprint of everything stored.
import type pg from 'pg';

export type Api = 'merchant' | 'internal' | 'gateway';

export interface Answer { status: number; headers: Headers; body: any; text: string }

/** Sends `raw` as the body text exactly as given; the client gives up after a second (an answer must come sooner). */
export async function send(url: string, method: string, path: string, opts: { raw?: string; auth?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.auth) headers.authorization = `Bearer ${opts.auth}`;
  if (opts.raw !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(url + path, { method, headers, body: opts.raw, signal: AbortSignal.timeout(1000), redirect: 'manual' });
  const text = await res.text();
  let body: unknown = null;
  try { body = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, body, text };
}

/**
 * The error envelope of each API: the merchant and operator APIs carry {error: {type, code,
 * message, param}, request_id} with a lower-case code; the gateway (and its pages) an upper-case code.
 */
export function envelopeProblem(api: Api, a: Answer, code: string): string | null {
  const e = a.body?.error;
  if (!e || typeof e.message !== 'string' || typeof a.body.request_id !== 'string') return `no envelope: ${a.text.slice(0, 200)}`;
  if (api === 'gateway') return e.code === code.toUpperCase() && e.type === undefined ? null : `gateway envelope expected ${code.toUpperCase()}: ${a.text.slice(0, 200)}`;
  return e.code === code && typeof e.type === 'string' && 'param' in e ? null : `${api} envelope expected ${code}: ${a.text.slice(0, 200)}`;
}

const TABLES = ['merchants', 'api_keys', 'channels', 'payments', 'events', 'webhook_settings', 'webhook_deliveries', 'saved_cards',
  'merchant_method_settings', 'merchant_connector_methods', 'connector_method_capabilities', 'payouts', 'connector_attempts'];

/** A digest of every row of every table a request could change. */
export async function storedFingerprint(db: pg.Pool): Promise<string> {
  const parts: string[] = [];
  for (const t of TABLES) {
    const { rows } = await db.query(`SELECT md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS h, count(*)::int AS n FROM ${t} x`);
    parts.push(`${t}:${rows[0].n}:${rows[0].h}`);
  }
  return parts.join(' ');
}

/** n levels of {"a": ...} around a value: about 6 bytes a level. */
export const deep = (n: number, inner = '1'): string => '{"a":'.repeat(n) + inner + '}'.repeat(n);

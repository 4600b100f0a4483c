// The active SBP member list behind every public bank list (GET /sbp/members, /sbp/members/popular,
// /checkout/{id}/sbp-members, the widget's /widget/v1/sbp-members and the hosted page's bank
// buttons), cached in the key-value store (Redis, or in-process by default) for 300 s.
//
// Invalidation across processes: the cached list lives under a key named by a generation token;
// an operator change commits in Postgres first and then sets a new random token, so a reader that
// loaded the old rows can only write them under the old token, which nobody reads any more.
//
// Fail open: a lookup that errs or passes SBP_LOOKUP_DEADLINE_MS answers an empty list (logged);
// the key-value store being down only means reading Postgres.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { withDeadline } from '../deadline.js';
import { POPULAR_DEFAULT_LIMIT, popularOf, type SbpMember } from '../domain/sbp-member.js';
import { listActiveSbpMembers } from '../store/sbp-members-repo.js';
import type { Services } from './services.js';

export const SBP_CACHE_TTL_MS = 300_000;
/** Cache-Control of a bank list answered from the list (also the widget's, by the spec). */
export const SBP_LIST_CACHE_CONTROL = 'public, max-age=300';
/** Cache-Control of a failed-open (empty) answer: no cache may keep it. */
export const SBP_FAILED_OPEN_CACHE_CONTROL = 'no-store';

const GEN_KEY = 'sbp:members:gen';
const GEN_TTL_MS = 30 * 24 * 3600_000;
const listKey = (gen: string) => `sbp:members:list:${gen}`;

/** The list, and whether it is a failed-open empty answer rather than the real list. */
export interface SbpList { members: SbpMember[]; failedOpen: boolean }

// One Postgres read at a time per process and generation: a cold cache under load costs one query.
const inflight = new WeakMap<pg.Pool, Map<string, Promise<SbpMember[]>>>();

function readThrough(s: Services, gen: string | null): Promise<SbpMember[]> {
  let m = inflight.get(s.db);
  if (!m) { m = new Map(); inflight.set(s.db, m); }
  const k = gen ?? '';
  const running = m.get(k);
  if (running) return running;
  const p = (async () => {
    const list = await listActiveSbpMembers(s.db);
    if (gen !== null) {
      await s.kv.set(listKey(gen), JSON.stringify(list), SBP_CACHE_TTL_MS)
        .catch((err: Error) => s.log.warn({ err: err.message }, 'SBP member list not cached: key-value store unreachable'));
    }
    return list;
  })().finally(() => m.delete(k));
  m.set(k, p);
  return p;
}

/** A cached entry, or null when it is not a list (then it is read again and overwritten). */
function parseList(text: string): SbpMember[] | null {
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v as SbpMember[] : null;
  } catch { return null; }
}

async function load(s: Services): Promise<SbpMember[]> {
  let gen: string | null;
  try {
    gen = (await s.kv.get(GEN_KEY)) ?? '0';
    const hit = await s.kv.get(listKey(gen));
    const parsed = hit === null ? null : parseList(hit);
    if (parsed) return parsed;
  } catch (err) {
    s.log.warn({ err: (err as Error).message }, 'SBP member cache unreachable; reading Postgres');
    gen = null;
  }
  return readThrough(s, gen);
}

/** The active members (popular first, then display order); an empty list on any error or past the deadline. */
export async function activeSbpMembers(s: Services): Promise<SbpList> {
  const r = await withDeadline(load(s), s.config.sbpLookupDeadlineMs);
  if (r.timedOut || r.error !== undefined) s.metrics.sbpListFailOpen.inc();
  if (r.timedOut) {
    s.log.warn({ deadlineMs: s.config.sbpLookupDeadlineMs }, 'SBP member lookup passed its deadline; answering an empty list');
    return { members: [], failedOpen: true };
  }
  if (r.error !== undefined) {
    s.log.warn({ err: (r.error as Error)?.message ?? String(r.error) }, 'SBP member lookup failed; answering an empty list');
    return { members: [], failedOpen: true };
  }
  return { members: r.value!, failedOpen: false };
}

/** Drops the cached list everywhere (after the change committed). False when the store was unreachable. */
export async function invalidateSbpMembers(s: Services): Promise<boolean> {
  try {
    await s.kv.set(GEN_KEY, randomBytes(8).toString('hex'), GEN_TTL_MS);
    return true;
  } catch (err) {
    s.log.error({ err: (err as Error).message }, 'SBP member cache not invalidated: key-value store unreachable; lists may be stale for up to 300 s');
    return false;
  }
}

export interface SbpListAnswer { body: { data: SbpMember[]; count: number }; cacheControl: string }

/**
 * The body of a `{data, count}` bank list and its Cache-Control, for GET /sbp/members and the
 * widget's GET /widget/v1/sbp-members (which answers the same body with this header). Never throws.
 */
export async function sbpMembersAnswer(s: Services, opts: { popular?: boolean; limit?: number } = {}): Promise<SbpListAnswer> {
  const { members, failedOpen } = await activeSbpMembers(s);
  const data = opts.popular ? popularOf(members, opts.limit ?? POPULAR_DEFAULT_LIMIT) : opts.limit ? members.slice(0, opts.limit) : members;
  return { body: { data, count: data.length }, cacheControl: failedOpen ? SBP_FAILED_OPEN_CACHE_CONTROL : SBP_LIST_CACHE_CONTROL };
}

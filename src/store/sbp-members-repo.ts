// SQL of the SBP member table: the one source of the public bank lists (through the cache in
// src/http/sbp-list.ts) and of the submit-method whitelist (read here directly, always exact).
import type pg from 'pg';
import type { SbpMember } from '../domain/sbp-member.js';
import { columns } from './columns.js';

/** A stored row as the operator sees it: the public record plus its switch and timestamps. */
export interface SbpMemberRecord extends SbpMember {
  active: boolean;
  created_at: string;
  updated_at: string;
}

interface Row {
  member_id: string; name_en: string; name_ru: string; name_az: string; logo_url: string; deeplink_ios: string;
  deeplink_android: string; is_popular: boolean; display_order: number; active: boolean; created_at: Date; updated_at: Date;
}

const toMember = (r: Row): SbpMember => ({
  member_id: r.member_id, name: { en: r.name_en, ru: r.name_ru, az: r.name_az }, logo_url: r.logo_url,
  deeplink_ios: r.deeplink_ios, deeplink_android: r.deeplink_android, is_popular: r.is_popular, display_order: r.display_order,
});

const toRecord = (r: Row): SbpMemberRecord => ({
  ...toMember(r), active: r.active, created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString(),
});

/** Active members, popular banks first, then by display order and member id. */
export async function listActiveSbpMembers(db: pg.Pool): Promise<SbpMember[]> {
  const res = await db.query<Row>({
    name: 'sbp_members_active',
    text: `SELECT ${columns('sbp_members')} FROM sbp_members WHERE active ORDER BY is_popular DESC, display_order, member_id`,
  });
  return res.rows.map(toMember);
}

/** The whitelist check of submit-method: straight from the table, so never stale. */
export async function isActiveSbpMember(db: pg.Pool, memberId: string): Promise<boolean> {
  const res = await db.query({ name: 'sbp_member_active', text: 'SELECT 1 FROM sbp_members WHERE member_id = $1 AND active', values: [memberId] });
  return res.rowCount === 1;
}

/** Every row, active or not, in list order (operator view). */
export async function listAllSbpMembers(db: pg.Pool): Promise<SbpMemberRecord[]> {
  const res = await db.query<Row>('SELECT * FROM sbp_members ORDER BY is_popular DESC, display_order, member_id');
  return res.rows.map(toRecord);
}

export async function getSbpMember(db: pg.Pool, memberId: string): Promise<SbpMemberRecord | null> {
  const res = await db.query<Row>('SELECT * FROM sbp_members WHERE member_id = $1', [memberId]);
  return res.rows[0] ? toRecord(res.rows[0]) : null;
}

export interface SbpMemberInput {
  member_id: string; name: { en: string; ru: string; az: string }; logo_url: string; deeplink_ios: string;
  deeplink_android: string; is_popular: boolean; display_order: number; active: boolean;
}

/** Creates or replaces a member; `created` tells which. */
export async function upsertSbpMember(db: pg.Pool, m: SbpMemberInput): Promise<{ record: SbpMemberRecord; created: boolean }> {
  const res = await db.query<Row & { inserted: boolean }>(
    `INSERT INTO sbp_members AS m (member_id, name_en, name_ru, name_az, logo_url, deeplink_ios, deeplink_android, is_popular, display_order, active)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (member_id) DO UPDATE SET
       name_en = EXCLUDED.name_en, name_ru = EXCLUDED.name_ru, name_az = EXCLUDED.name_az, logo_url = EXCLUDED.logo_url,
       deeplink_ios = EXCLUDED.deeplink_ios, deeplink_android = EXCLUDED.deeplink_android, is_popular = EXCLUDED.is_popular,
       display_order = EXCLUDED.display_order, active = EXCLUDED.active, updated_at = now()
     RETURNING *, (xmax = 0) AS inserted`,
    [m.member_id, m.name.en, m.name.ru, m.name.az, m.logo_url, m.deeplink_ios, m.deeplink_android, m.is_popular, m.display_order, m.active]);
  return { record: toRecord(res.rows[0]), created: res.rows[0].inserted };
}

export interface SbpMemberPatch {
  name?: { en?: string; ru?: string; az?: string }; logo_url?: string; deeplink_ios?: string; deeplink_android?: string;
  is_popular?: boolean; display_order?: number; active?: boolean;
}

/** Changes the given fields of a member; null when there is no such member. */
export async function patchSbpMember(db: pg.Pool, memberId: string, p: SbpMemberPatch): Promise<SbpMemberRecord | null> {
  const res = await db.query<Row>(
    `UPDATE sbp_members SET
       name_en = coalesce($2, name_en), name_ru = coalesce($3, name_ru), name_az = coalesce($4, name_az),
       logo_url = coalesce($5, logo_url), deeplink_ios = coalesce($6, deeplink_ios), deeplink_android = coalesce($7, deeplink_android),
       is_popular = coalesce($8, is_popular), display_order = coalesce($9, display_order), active = coalesce($10, active), updated_at = now()
     WHERE member_id = $1 RETURNING *`,
    [memberId, p.name?.en ?? null, p.name?.ru ?? null, p.name?.az ?? null, p.logo_url ?? null, p.deeplink_ios ?? null,
      p.deeplink_android ?? null, p.is_popular ?? null, p.display_order ?? null, p.active ?? null]);
  return res.rows[0] ? toRecord(res.rows[0]) : null;
}

/** Removes a member for good; false when there was none. */
export async function deleteSbpMember(db: pg.Pool, memberId: string): Promise<boolean> {
  const res = await db.query('DELETE FROM sbp_members WHERE member_id = $1', [memberId]);
  return res.rowCount === 1;
}

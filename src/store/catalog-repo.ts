// SQL for the three layers of the method catalog. (SBP members: sbp-members-repo.ts.)
import type pg from 'pg';
import type { AcquirerSwitch, CatalogLayers, Capability, MerchantSetting } from '../domain/catalog.js';
import type { MethodCode, RenderMode } from '../domain/methods.js';

interface CapRow {
  connector: string; method_code: MethodCode; enabled: boolean; render_mode: RenderMode; display_order: number;
  supports_recurring: boolean; supports_refund: boolean; min_amount_minor: number | null; max_amount_minor: number | null; allowed_currencies: string[];
}

const toCap = (r: CapRow): Capability => ({
  method: r.method_code, enabled: r.enabled, renderMode: r.render_mode, displayOrder: r.display_order,
  supportsRecurring: r.supports_recurring, supportsRefund: r.supports_refund,
  minAmount: r.min_amount_minor === null ? null : Number(r.min_amount_minor),
  maxAmount: r.max_amount_minor === null ? null : Number(r.max_amount_minor), currencies: r.allowed_currencies,
});

/** The three layers for one merchant and connector, in one round trip. */
export async function loadLayers(db: pg.Pool, merchantId: string, connector: string): Promise<CatalogLayers> {
  const res = await db.query({
    name: 'catalog_layers',
    text: `SELECT
      (SELECT coalesce(jsonb_agg(to_jsonb(c)), '[]') FROM connector_method_capabilities c WHERE c.connector = $2) AS cmc,
      (SELECT coalesce(jsonb_agg(jsonb_build_object('method', a.method_code, 'enabled', a.enabled)), '[]')
         FROM merchant_connector_methods a WHERE a.merchant_id = $1 AND a.connector = $2) AS mca,
      (SELECT coalesce(jsonb_agg(jsonb_build_object('method', s.method_code, 'enabled', s.enabled, 'displayOrder', s.display_order)), '[]')
         FROM merchant_method_settings s WHERE s.merchant_id = $1) AS mcs`,
    values: [merchantId, connector],
  });
  const r = res.rows[0];
  return { cmc: (r.cmc as CapRow[]).map(toCap), mca: r.mca as AcquirerSwitch[], mcs: r.mcs as MerchantSetting[] };
}

export async function listCapabilities(db: pg.Pool): Promise<(Capability & { connector: string })[]> {
  const res = await db.query<CapRow>('SELECT * FROM connector_method_capabilities ORDER BY connector, display_order');
  return res.rows.map((r) => ({ connector: r.connector, ...toCap(r) }));
}

export interface CapabilityPatch {
  enabled?: boolean; render_mode?: RenderMode; display_order?: number; supports_recurring?: boolean; supports_refund?: boolean;
  min_amount_minor?: number | null; max_amount_minor?: number | null; allowed_currencies?: string[];
}

export async function upsertCapability(db: pg.Pool, connector: string, method: MethodCode, p: CapabilityPatch): Promise<void> {
  await db.query(
    `INSERT INTO connector_method_capabilities AS c (connector, method_code, enabled, render_mode, display_order, supports_recurring, supports_refund, min_amount_minor, max_amount_minor, allowed_currencies)
     VALUES ($1, $2, coalesce($3::boolean, true), coalesce($4::text, 'inline_form'), coalesce($5::integer, 100), coalesce($6::boolean, false), coalesce($7::boolean, true), $8::bigint, $9::bigint, coalesce($10::text[], '{}'))
     ON CONFLICT (connector, method_code) DO UPDATE SET
       enabled = coalesce($3, c.enabled), render_mode = coalesce($4, c.render_mode), display_order = coalesce($5, c.display_order),
       supports_recurring = coalesce($6, c.supports_recurring), supports_refund = coalesce($7, c.supports_refund),
       min_amount_minor = CASE WHEN $11::boolean THEN $8 ELSE c.min_amount_minor END,
       max_amount_minor = CASE WHEN $12::boolean THEN $9 ELSE c.max_amount_minor END,
       allowed_currencies = coalesce($10, c.allowed_currencies), updated_at = now()`,
    [connector, method, p.enabled ?? null, p.render_mode ?? null, p.display_order ?? null, p.supports_recurring ?? null,
      p.supports_refund ?? null, p.min_amount_minor ?? null, p.max_amount_minor ?? null, p.allowed_currencies ?? null,
      p.min_amount_minor !== undefined, p.max_amount_minor !== undefined]);
}

export async function setAcquirerSwitch(db: pg.Pool, merchantId: string, connector: string, method: MethodCode, enabled: boolean): Promise<void> {
  await db.query(
    `INSERT INTO merchant_connector_methods (merchant_id, connector, method_code, enabled) VALUES ($1, $2, $3, $4)
     ON CONFLICT (merchant_id, connector, method_code) DO UPDATE SET enabled = $4, updated_at = now()`,
    [merchantId, connector, method, enabled]);
}

export async function setMerchantSetting(db: pg.Pool, merchantId: string, method: MethodCode, enabled: boolean, displayOrder: number | null): Promise<void> {
  await db.query(
    `INSERT INTO merchant_method_settings (merchant_id, method_code, enabled, display_order) VALUES ($1, $2, $3, $4)
     ON CONFLICT (merchant_id, method_code) DO UPDATE SET enabled = $3, display_order = $4, updated_at = now()`,
    [merchantId, method, enabled, displayOrder]);
}

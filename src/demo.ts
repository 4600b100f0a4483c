// The ready demo merchant of the zero-configuration start: created once. Its test keys are the
// saved ones while they are still active (the embedded default keeps them in DATA_DIR, see
// dev-credentials.ts); otherwise the previous demo keys are revoked and new ones issued.
import type pg from 'pg';
import { createMerchant, issueKey } from './operator/merchants.js';
import { checkFrameOrigin } from './domain/frame-origins.js';
import { hashKey } from './domain/ids.js';
import { findActiveKey, findDemoMerchant, revokeLabelledKeys, updateMerchant } from './store/merchants-repo.js';

export interface DemoMerchant { merchantId: string; merchantKey: string; secretKey: string; publishableKey: string }

/** What the demo tells the process's key cache: a revoked key is forgotten, new keys are no longer unknown. */
export interface KeyCache { forgetKey(hash: string): void; forgetUnknown(): void }

const LABEL = 'demo';
/** The label of the demo keys before they were kept across starts (revoked like the current ones). */
const OLD_LABEL = 'demo (reissued at every start)';

async function stillActive(db: pg.Pool, merchantId: string, saved: DemoMerchant): Promise<boolean> {
  if (saved.merchantId !== merchantId) return false;
  for (const k of [saved.merchantKey, saved.secretKey, saved.publishableKey]) {
    const found = await findActiveKey(db, hashKey(k));
    if (!found || found.merchant.id !== merchantId) return false;
  }
  return true;
}

/** `publicBaseUrl`: its origin is added to the demo merchant's framing allowlist, so /demo can frame the checkout. */
export async function ensureDemoMerchant(db: pg.Pool, keys: KeyCache, publicBaseUrl?: string, saved: DemoMerchant | null = null): Promise<DemoMerchant> {
  let m = await findDemoMerchant(db);
  if (!m) {
    const created = await createMerchant(db, { name: 'Demo merchant', is_demo: true, rate_limit_per_minute: 1000 });
    if ('code' in created) throw new Error('demo merchant could not be created');
    m = created;
  }
  const self = publicBaseUrl ? checkFrameOrigin(new URL(publicBaseUrl).origin) : null;
  if (self?.ok && !m.allowedDomains.includes(self.origin)) {
    m = (await updateMerchant(db, m.id, { allowedDomains: [...m.allowedDomains, self.origin].slice(-20) })) ?? m;
  }
  if (saved && await stillActive(db, m.id, saved)) return saved;
  for (const label of [LABEL, OLD_LABEL]) for (const h of await revokeLabelledKeys(db, m.id, label)) keys.forgetKey(h);
  const issue = async (kind: 'merchant' | 'secret' | 'publishable') => {
    const issued = await issueKey(db, m!.id, { kind, mode: 'test', label: LABEL });
    if ('code' in issued) throw new Error(`demo key could not be issued: ${issued.code}`);
    return issued.secret;
  };
  const demo = { merchantId: m.id, merchantKey: await issue('merchant'), secretKey: await issue('secret'), publishableKey: await issue('publishable') };
  keys.forgetUnknown();
  return demo;
}

// The ready demo merchant of the zero-configuration start: created once, with fresh test keys
// printed at every start (the previous demo keys are revoked; keys are never stored in clear).
import type pg from 'pg';
import { createMerchant, issueKey } from './operator/merchants.js';
import { checkFrameOrigin } from './domain/frame-origins.js';
import { findDemoMerchant, revokeLabelledKeys, updateMerchant } from './store/merchants-repo.js';

export interface DemoMerchant { merchantId: string; merchantKey: string; secretKey: string; publishableKey: string }

/** What the demo tells the process's key cache: a revoked key is forgotten, new keys are no longer unknown. */
export interface KeyCache { forgetKey(hash: string): void; forgetUnknown(): void }

const LABEL = 'demo (reissued at every start)';

/** `publicBaseUrl`: its origin is added to the demo merchant's framing allowlist, so /demo can frame the checkout. */
export async function ensureDemoMerchant(db: pg.Pool, keys: KeyCache, publicBaseUrl?: string): Promise<DemoMerchant> {
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
  for (const h of await revokeLabelledKeys(db, m.id, LABEL)) keys.forgetKey(h);
  const issue = async (kind: 'merchant' | 'secret' | 'publishable') => {
    const issued = await issueKey(db, m!.id, { kind, mode: 'test', label: LABEL });
    if ('code' in issued) throw new Error(`demo key could not be issued: ${issued.code}`);
    return issued.secret;
  };
  const demo = { merchantId: m.id, merchantKey: await issue('merchant'), secretKey: await issue('secret'), publishableKey: await issue('publishable') };
  keys.forgetUnknown();
  return demo;
}

// The ready demo merchant of the zero-configuration start: created once, with fresh test keys
// printed at every start (the previous demo keys are revoked; keys are never stored in clear).
import { findDemoMerchant } from './store/merchants-repo.js';
import { revokeLabelledKeys } from './store/merchants-repo.js';
import { createMerchant, issueKey } from './http/routes/internal.js';
import type { Services } from './http/services.js';

export interface DemoMerchant { merchantId: string; merchantKey: string; secretKey: string; publishableKey: string }

const LABEL = 'demo (reissued at every start)';

export async function ensureDemoMerchant(s: Services): Promise<DemoMerchant> {
  let m = await findDemoMerchant(s.db);
  if (!m) {
    const created = await createMerchant(s, { name: 'Demo merchant', is_demo: true, rate_limit_per_minute: 1000 });
    if ('code' in created) throw new Error('demo merchant could not be created');
    m = created;
  }
  for (const h of await revokeLabelledKeys(s.db, m.id, LABEL)) s.auth.forgetKey(h);
  const issue = (kind: 'merchant' | 'secret' | 'publishable') => issueKey(s, m!.id, { kind, mode: 'test', label: LABEL });
  return {
    merchantId: m.id,
    merchantKey: (await issue('merchant')).secret,
    secretKey: (await issue('secret')).secret,
    publishableKey: (await issue('publishable')).secret,
  };
}

// Who may frame a payment's pages (the hosted page and the sandbox ACS): the merchant's allowlist,
// and the embedding parent named by `?origin=` (or a form field) when it is on that list.
import { allowedParent } from '../domain/frame-origins.js';
import { getMerchant } from '../store/merchants-repo.js';
import type { Services } from './services.js';

export interface Framing { allowlist: string[]; parentOrigin: string | null }

export async function framingOf(s: Services, merchantId: string, asked: string | null): Promise<Framing> {
  const allowlist = (await getMerchant(s.db, merchantId))?.allowedDomains ?? [];
  return { allowlist, parentOrigin: allowedParent(asked, allowlist) };
}

/** `?origin=…` to carry the parent through a navigation inside the frame ('' when not framed). */
export const originQuery = (parent: string | null, sep: '?' | '&' = '?'): string =>
  parent ? `${sep}origin=${encodeURIComponent(parent)}` : '';

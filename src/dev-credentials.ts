// The embedded default's credentials, kept with its data (DATA_DIR/credentials.json, readable only
// by the owner) so that a second `npm start` prints the same operator token and demo keys; a fresh
// DATA_DIR (a fresh cluster) makes new ones. Never used with DATABASE_URL: there the operator sets
// ADMIN_TOKEN and issues keys through the operator API.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DemoMerchant } from './demo.js';

export interface DevCredentials { adminToken: string; demo: DemoMerchant | null }

export const credentialsFile = (dataDir: string): string => path.join(dataDir, 'credentials.json');

const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** The saved credentials, or null when there are none (or they do not parse: new ones are made). */
export function readCredentials(dataDir: string): DevCredentials | null {
  let raw: unknown;
  try { raw = JSON.parse(readFileSync(credentialsFile(dataDir), 'utf8')); } catch { return null; }
  const o = raw as Record<string, unknown> | null;
  if (!o || !str(o.adminToken)) return null;
  const d = o.demo as Record<string, unknown> | null | undefined;
  const demo = d && str(d.merchantId) && str(d.merchantKey) && str(d.secretKey) && str(d.publishableKey)
    ? { merchantId: d.merchantId, merchantKey: d.merchantKey, secretKey: d.secretKey, publishableKey: d.publishableKey } : null;
  return { adminToken: o.adminToken, demo };
}

/** Written whole (temporary file, then rename), mode 0600. */
export function writeCredentials(dataDir: string, c: DevCredentials): void {
  const file = credentialsFile(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(c, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, file);
}

// String formats used by the schemas, registered once with TypeBox so that compiled validators
// and the OpenAPI document speak of the same formats.
import { FormatRegistry } from '@sinclair/typebox';
import { isIP } from 'node:net';

// Deliberately plain: one @, no spaces, a dot in the domain. Deliverability is the mailer's concern.
export const EMAIL_RE = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;

export function registerFormats(): void {
  if (!FormatRegistry.Has('email')) FormatRegistry.Set('email', (v) => EMAIL_RE.test(v));
  if (!FormatRegistry.Has('uri')) FormatRegistry.Set('uri', (v) => { try { new URL(v); return true; } catch { return false; } });
  if (!FormatRegistry.Has('ip')) FormatRegistry.Set('ip', (v) => isIP(v) !== 0);
}
registerFormats();

// String formats used by the schemas, registered once with TypeBox so that compiled validators
// and the OpenAPI document speak of the same formats.
import { FormatRegistry } from '@sinclair/typebox';
import { isIP } from 'node:net';

// Deliberately plain: one @, no spaces, a dot in the domain. Deliverability is the mailer's concern.
export const EMAIL_RE = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;

export function registerFormats(): void {
  if (!FormatRegistry.Has('email')) FormatRegistry.Set('email', (v) => EMAIL_RE.test(v));
  if (!FormatRegistry.Has('uri')) FormatRegistry.Set('uri', (v) => { try { new URL(v); return true; } catch { return false; } });
  // The standard JSON Schema formats (no home-made 'ip'): an address is one or the other.
  if (!FormatRegistry.Has('ipv4')) FormatRegistry.Set('ipv4', (v) => isIP(v) === 4);
  if (!FormatRegistry.Has('ipv6')) FormatRegistry.Set('ipv6', (v) => isIP(v) === 6);
  // Response timestamps (RFC 3339), so that answers can be checked against their schemas.
  if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => DATE_TIME_RE.test(v) && Number.isFinite(Date.parse(v)));
}

export const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
registerFormats();

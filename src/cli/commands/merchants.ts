// `merchants create|get|update`: POST/GET/PATCH /internal/merchants.
import { defined, optBoolean, optInteger, optIntegerOrNone, optList, optNumber, optString } from '../args.js';
import { UsageError, type Command, type OptionSpec, type OptionValues } from '../command.js';
import { checkFrameOrigin } from '../../domain/frame-origins.js';
import { seg } from '../http.js';

const upper = (s: string) => s.toUpperCase();

const fields: Record<string, OptionSpec> = {
  name: { type: 'string', value: 'NAME', description: 'Display name' },
  currency: { type: 'string', value: 'CODE', description: 'Default currency, e.g. AZN (must be one of --currencies)' },
  currencies: { type: 'string', value: 'A,B', description: 'Accepted currencies, e.g. AZN,USD (default AZN,RUB,USD,EUR)' },
  'fee-percent': { type: 'string', value: 'P', description: 'Fee percent of the amount, e.g. 2.5' },
  'fee-fixed': { type: 'string', value: 'MINOR', description: 'Fixed fee per payment in minor units' },
  'rate-limit': { type: 'string', value: 'N|none', description: 'Requests per minute for this merchant (none: server default)' },
  'api-enabled': { type: 'string', value: 'true|false', description: 'Allow or block the merchant\'s API keys' },
};

/** Only on update: PATCH is where the framing allowlist is set. */
const allowedDomains: Record<string, OptionSpec> = {
  'allowed-domains': { type: 'string', value: 'A,B|none', description: 'Replace the whole list of site origins allowed to frame the hosted page (embedded form), e.g. https://shop.example; none clears it' },
  'add-allowed-domains': { type: 'string', value: 'A,B', description: 'Add these origins to the list, keeping the others' },
  'remove-allowed-domains': { type: 'string', value: 'A,B', description: 'Remove these origins from the list, keeping the others' },
};

/** An origin as the server stores it (lower-case host, default port dropped), to compare entries. */
const canonical = (o: string): string => { const c = checkFrameOrigin(o); return c.ok ? c.origin : o; };

/**
 * The list to send, or undefined when no allowlist option is given. Adding and removing start from
 * the merchant's list as it is now (read first); replacing says what it drops.
 */
async function domains(opts: OptionValues, current: () => Promise<string[]>): Promise<{ list: string[]; notes: string[] } | undefined> {
  const replace = optString(opts, 'allowed-domains');
  const add = optList(opts, 'add-allowed-domains');
  const remove = optList(opts, 'remove-allowed-domains');
  if (replace !== undefined && (add || remove)) throw new UsageError('--allowed-domains replaces the whole list: give it alone, or use --add-allowed-domains and --remove-allowed-domains');
  if (replace === undefined && !add && !remove) return undefined;
  const before = await current();
  const notes: string[] = [];
  if (replace !== undefined) {
    const list = replace.trim().toLowerCase() === 'none' ? [] : optList(opts, 'allowed-domains')!;
    const kept = new Set(list.map(canonical));
    const dropped = before.filter((o) => !kept.has(o));
    if (dropped.length) notes.push(`replaced the whole list; no longer allowed: ${dropped.join(', ')}`);
    return { list, notes };
  }
  let list = [...before];
  for (const o of remove ?? []) {
    const c = canonical(o);
    if (list.includes(c)) list = list.filter((x) => x !== c);
    else notes.push(`${o} was not on the list`);
  }
  for (const o of add ?? []) {
    if (list.includes(canonical(o))) notes.push(`${o} was already on the list`);
    else list.push(o);
  }
  return { list, notes };
}

function body(opts: OptionValues) {
  const currency = optString(opts, 'currency');
  return defined({
    name: optString(opts, 'name'),
    default_currency: currency === undefined ? undefined : upper(currency),
    currencies: optList(opts, 'currencies', upper),
    fee_percent: optNumber(opts, 'fee-percent'),
    fee_fixed: optInteger(opts, 'fee-fixed'),
    rate_limit_per_minute: optIntegerOrNone(opts, 'rate-limit'),
    api_enabled: optBoolean(opts, 'api-enabled'),
  });
}

const create: Command = {
  path: ['merchants', 'create'],
  args: [],
  summary: 'Create a merchant',
  options: { ...fields, name: { ...fields.name, required: true } },
  auth: true,
  async run({ opts, client }) {
    const merchant = await client.call('POST', '/internal/merchants', body(opts)) as { id: string };
    return { data: merchant, quiet: merchant.id };
  },
};

const get: Command = {
  path: ['merchants', 'get'],
  args: ['MERCHANT_ID'],
  summary: 'Show a merchant',
  options: {},
  auth: true,
  async run({ args, client }) {
    return { data: await client.call('GET', `/internal/merchants/${seg(args.MERCHANT_ID)}`) };
  },
};

const update: Command = {
  path: ['merchants', 'update'],
  args: ['MERCHANT_ID'],
  summary: 'Change a merchant (only the options given)',
  options: { ...fields, ...allowedDomains },
  auth: true,
  async run({ args, opts, client, io }) {
    const path = `/internal/merchants/${seg(args.MERCHANT_ID)}`;
    const fields = body(opts);
    const origins = await domains(opts, async () => ((await client.call('GET', path)) as { allowed_domains: string[] }).allowed_domains);
    const patch = defined({ ...fields, allowed_domains: origins?.list });
    if (!Object.keys(patch).length) throw new UsageError('nothing to update: give at least one option');
    const merchant = (await client.call('PATCH', path, patch)) as { allowed_domains: string[] };
    if (origins) {
      // On stderr, so that stdout stays the merchant's JSON: what the list now is, and what changed.
      for (const n of origins.notes) io.err(`note: ${n}\n`);
      const now = merchant.allowed_domains;
      io.err(`allowed_domains (${now.length}): ${now.length ? now.join(', ') : 'none: no site may frame the hosted page'}\n`);
    }
    return { data: merchant };
  },
};

export const merchantCommands: Command[] = [create, get, update];

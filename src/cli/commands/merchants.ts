// `merchants create|get|update`: POST/GET/PATCH /internal/merchants.
import { defined, optBoolean, optInteger, optIntegerOrNone, optList, optNumber, optString } from '../args.js';
import { UsageError, type Command, type OptionSpec, type OptionValues } from '../command.js';
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
  'allowed-domains': { type: 'string', value: 'A,B|none', description: 'Site origins allowed to frame the hosted page (embedded form), e.g. https://shop.example; none clears the list' },
};

function domains(opts: OptionValues): string[] | undefined {
  return optString(opts, 'allowed-domains')?.trim().toLowerCase() === 'none' ? [] : optList(opts, 'allowed-domains');
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
  async run({ args, opts, client }) {
    const patch = defined({ ...body(opts), allowed_domains: domains(opts) });
    if (!Object.keys(patch).length) throw new UsageError('nothing to update: give at least one option');
    return { data: await client.call('PATCH', `/internal/merchants/${seg(args.MERCHANT_ID)}`, patch) };
  },
};

export const merchantCommands: Command[] = [create, get, update];

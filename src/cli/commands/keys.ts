// `keys create|list|revoke`: the API keys of one merchant under /internal/merchants/{id}/api-keys.
import { defined, optList, optString } from '../args.js';
import type { Command } from '../command.js';
import { seg } from '../http.js';

const keysPath = (merchantId: string) => `/internal/merchants/${seg(merchantId)}/api-keys`;

const create: Command = {
  path: ['keys', 'create'],
  args: ['MERCHANT_ID'],
  summary: 'Issue an API key (the secret is shown once)',
  options: {
    kind: { type: 'string', value: 'KIND', required: true, choices: ['merchant', 'secret', 'restricted', 'publishable'],
      description: 'merchant (svc_, merchant API), secret (sk_), restricted (rk_) or publishable (pk_)' },
    mode: { type: 'string', value: 'MODE', required: true, choices: ['test', 'live'], description: 'test or live' },
    channel: { type: 'string', value: 'ID', description: 'Limit the key to one channel' },
    permissions: { type: 'string', value: 'a:read,b:write', description: 'Permissions of a restricted key' },
    label: { type: 'string', value: 'TEXT', description: 'Free-text label' },
  },
  auth: true,
  async run({ args, opts, client }) {
    const key = await client.call('POST', keysPath(args.MERCHANT_ID), defined({
      kind: optString(opts, 'kind'),
      mode: optString(opts, 'mode'),
      channel_id: optString(opts, 'channel'),
      permissions: optList(opts, 'permissions'),
      label: optString(opts, 'label'),
    })) as { key: string };
    return { data: key, quiet: key.key };
  },
};

const list: Command = {
  path: ['keys', 'list'],
  args: ['MERCHANT_ID'],
  summary: 'List a merchant\'s API keys (hints only, never secrets)',
  options: {},
  auth: true,
  async run({ args, client }) {
    return { data: await client.call('GET', keysPath(args.MERCHANT_ID)) };
  },
};

const revoke: Command = {
  path: ['keys', 'revoke'],
  args: ['MERCHANT_ID', 'KEY_ID'],
  summary: 'Revoke an API key at once',
  options: {},
  auth: true,
  async run({ args, client }) {
    return { data: await client.call('DELETE', `${keysPath(args.MERCHANT_ID)}/${seg(args.KEY_ID)}`) };
  },
};

export const keyCommands: Command[] = [create, list, revoke];

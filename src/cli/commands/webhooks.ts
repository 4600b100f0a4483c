// `webhooks set|list|rotate|test` and `events list|deliveries|resend`: webhook endpoints of one
// merchant and the log of what was sent to them.
import { defined, optInteger, optList, optString } from '../args.js';
import type { Command, OptionSpec, OptionValues } from '../command.js';
import { ApiError, seg } from '../http.js';

const base = (merchantId: string) => `/internal/merchants/${seg(merchantId)}`;
/** `--api` of every webhook command (`listen` too): the merchant API unless told otherwise. */
export const apiOption: OptionSpec = { type: 'string', value: 'API', choices: ['merchant', 'gateway'], description: 'merchant (default) or gateway' };
export const apiOf = (opts: OptionValues): 'merchant' | 'gateway' => (optString(opts, 'api') === 'gateway' ? 'gateway' : 'merchant');
const api = apiOption;
const channel: OptionSpec = { type: 'string', value: 'ID', description: 'Channel of a gateway endpoint' };

const set: Command = {
  path: ['webhooks', 'set'],
  args: ['MERCHANT_ID'],
  summary: 'Create or change the webhook endpoint of an API (the secret is shown)',
  options: {
    api, channel,
    endpoint: { type: 'string', value: 'URL', required: true, description: 'Where events are POSTed (--url is the server\'s address)' },
    events: { type: 'string', value: 'a,b', description: 'Event types to send (default: all)' },
  },
  auth: true,
  async run({ args, opts, client }) {
    const s = await client.call('PUT', `${base(args.MERCHANT_ID)}/webhook-settings`, defined({
      api: apiOf(opts), url: optString(opts, 'endpoint'), events: optList(opts, 'events'), channel_id: optString(opts, 'channel'),
    })) as { secret: string };
    return { data: s, quiet: s.secret };
  },
};

const list: Command = {
  path: ['webhooks', 'list'], args: ['MERCHANT_ID'], summary: 'List a merchant\'s webhook endpoints', options: {}, auth: true,
  async run({ args, client }) { return { data: await client.call('GET', `${base(args.MERCHANT_ID)}/webhook-settings`) }; },
};

const remove: Command = {
  path: ['webhooks', 'remove'], args: ['MERCHANT_ID'], summary: 'Remove the webhook endpoint of an API (events are no longer sent)', options: { api, channel }, auth: true,
  async run({ args, opts, client }) {
    const scope = { api: apiOf(opts), channel: optString(opts, 'channel') ?? null };
    const all = (await client.call('GET', `${base(args.MERCHANT_ID)}/webhook-settings`)) as { data: { id: string; api: string; channel_id: string | null }[] };
    const found = all.data.find((w) => w.api === scope.api && w.channel_id === scope.channel);
    if (!found) throw new ApiError(404, 'webhook_settings_not_found', `no ${scope.api} API endpoint${scope.channel ? ` for channel ${scope.channel}` : ''}`);
    return { data: await client.call('DELETE', `${base(args.MERCHANT_ID)}/webhook-settings/${seg(found.id)}`) };
  },
};

const rotate: Command = {
  path: ['webhooks', 'rotate'],
  args: ['MERCHANT_ID'],
  summary: 'New signing secret; the old one keeps signing during the grace period',
  options: { api, channel, grace: { type: 'string', value: 'SECONDS', description: 'How long the old secret still signs (default 86400)' } },
  auth: true,
  async run({ args, opts, client }) {
    const s = await client.call('POST', `${base(args.MERCHANT_ID)}/webhook-settings/rotate-secret`, defined({
      api: apiOf(opts), channel_id: optString(opts, 'channel'), grace_seconds: optInteger(opts, 'grace'),
    })) as { secret: string };
    return { data: s, quiet: s.secret };
  },
};

const test: Command = {
  path: ['webhooks', 'test'], args: ['MERCHANT_ID'], summary: 'Send a signed test.ping now and show the attempt', options: { api, channel }, auth: true,
  async run({ args, opts, client }) {
    return { data: await client.call('POST', `${base(args.MERCHANT_ID)}/webhook-settings/test`, defined({ api: apiOf(opts), channel_id: optString(opts, 'channel') })) };
  },
};

const events: Command = {
  path: ['events', 'list'], args: ['MERCHANT_ID'], summary: 'Recent events of a merchant',
  options: { type: { type: 'string', value: 'TYPE', description: 'Only this event type' }, limit: { type: 'string', value: 'N', description: '1-100 (50)' } },
  auth: true,
  async run({ args, opts, client }) {
    const q = new URLSearchParams(defined({ type: optString(opts, 'type'), limit: optString(opts, 'limit') }) as Record<string, string>);
    return { data: await client.call('GET', `${base(args.MERCHANT_ID)}/events${q.size ? `?${q}` : ''}`) };
  },
};

const deliveries: Command = {
  path: ['events', 'deliveries'], args: ['MERCHANT_ID', 'EVENT_ID'], summary: 'Every delivery attempt of an event', options: {}, auth: true,
  async run({ args, client }) { return { data: await client.call('GET', `${base(args.MERCHANT_ID)}/events/${seg(args.EVENT_ID)}/deliveries`) }; },
};

const resend: Command = {
  path: ['events', 'resend'], args: ['MERCHANT_ID', 'EVENT_ID'], summary: 'Send an event again (same event id)', options: {}, auth: true,
  async run({ args, client }) { return { data: await client.call('POST', `${base(args.MERCHANT_ID)}/events/${seg(args.EVENT_ID)}/resend`) }; },
};

export const webhookCommands: Command[] = [set, list, remove, rotate, test, events, deliveries, resend];

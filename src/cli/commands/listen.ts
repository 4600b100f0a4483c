// `listen MERCHANT_ID --forward-to URL`: receives a merchant's webhooks on this machine (like
// Stripe's `listen`). It points the merchant's endpoint of one API at a relay on 127.0.0.1 for as
// long as it runs, prints each event as it arrives and forwards it unchanged (body and signature
// headers, signed by the server with the endpoint's secret, which it prints) to URL, answering the
// server with URL's status so that retries behave as they would. On exit (Ctrl-C, SIGTERM or
// --max-events) it leaves the endpoint as it found it: the previous endpoint is put back, and an
// endpoint it created is removed, so no later event goes to the stopped relay. Either is done only
// while the endpoint still points at the relay: one changed meanwhile by someone else is left alone.
// The relay is on loopback: it works against a server on this machine that may send there (the
// embedded default, test mode) or one with WEBHOOK_ALLOW_PRIVATE=1.
import http from 'node:http';
import { UsageError, type Command } from '../command.js';
import { optString } from '../args.js';
import { seg, type Client } from '../http.js';
import { apiOption, apiOf } from './webhooks.js';

interface Settings { id: string; api: string; url: string; events: string[] | null; channel_id: string | null; secret: string }

const FORWARD_TIMEOUT_MS = 10_000;

async function forward(to: string, body: Buffer, headers: http.IncomingHttpHeaders): Promise<number | string> {
  const h: Record<string, string> = { 'content-type': 'application/json' };
  for (const [k, v] of Object.entries(headers)) if (k.startsWith('x-svc-') && typeof v === 'string') h[k] = v;
  try {
    const r = await fetch(to, { method: 'POST', headers: h, body: new Uint8Array(body), signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
    await r.arrayBuffer().catch(() => undefined);
    return r.status;
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    return e.cause?.code ?? e.message;
  }
}

const listen: Command = {
  path: ['listen'],
  args: ['MERCHANT_ID'],
  summary: 'Receive a merchant\'s webhooks here: print each event and forward it, signed, to a local URL',
  options: {
    'forward-to': { type: 'string', value: 'URL', required: true, description: 'Where each event is POSTed, e.g. http://localhost:8080/hooks' },
    api: apiOption,
    events: { type: 'string', value: 'a,b', description: 'Event types to receive (default: all)' },
    'max-events': { type: 'string', value: 'N', description: 'Stop after N events (default: run until Ctrl-C)' },
  },
  auth: true,
  async run({ args, opts, client, io }) {
    const to = optString(opts, 'forward-to')!;
    if (!/^https?:\/\/[^/]/i.test(to)) throw new UsageError(`--forward-to must be an http(s) URL, got "${to}"`);
    const max = opts['max-events'] === undefined ? Infinity : Number(opts['max-events']);
    if (!(max === Infinity || (Number.isSafeInteger(max) && max > 0))) throw new UsageError('--max-events must be a whole number above 0');
    const api = apiOf(opts);
    const base = `/internal/merchants/${seg(args.MERCHANT_ID)}/webhook-settings`;
    const before = ((await client.call('GET', base)) as { data: Settings[] }).data.find((s) => s.api === api && s.channel_id === null) ?? null;

    let count = 0;
    let finish: () => void = () => {};
    const finished = new Promise<void>((r) => { finish = r; });
    const relay = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const type = req.headers['x-svc-event'] ?? '?';
        const id = req.headers['x-svc-event-id'] ?? '?';
        void forward(to, body, req.headers).then((status) => {
          io.out(`${new Date().toISOString()}  ${type}  ${id}  -> ${to} ${status}\n`);
          res.writeHead(typeof status === 'number' ? status : 502).end();
          if (++count >= max) finish();
        });
      });
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    const relayUrl = `http://127.0.0.1:${(relay.address() as { port: number }).port}/`;
    const stop = () => finish();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    let set: Settings | null = null;
    try {
      set = (await client.call('PUT', base, { api, url: relayUrl, ...(optString(opts, 'events') ? { events: optString(opts, 'events')!.split(',') } : {}) })) as Settings;
      io.out(`Forwarding ${api} API events of ${args.MERCHANT_ID} to ${to} (relay ${relayUrl}; Ctrl-C to stop)\n`);
      io.out(`Webhook signing secret: ${set.secret}\n`);
      await finished;
    } finally {
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      relay.closeAllConnections();
      relay.close();
    }
    const endpoint = await leaveAsFound(client, base, set, before, relayUrl);
    io.err(`${endpoint.note}\n`);
    return { data: { forwarded: count, endpoint: endpoint.outcome, endpoint_restored: endpoint.outcome === 'restored' ? before!.url : null } };
  },
};

type Outcome = 'restored' | 'removed' | 'left_changed';

/**
 * Puts the endpoint back as it was before `listen`: the previous one restored, or the one `listen`
 * created removed. An endpoint that no longer points at the relay was changed by someone else
 * while `listen` ran, and is theirs: left as it is.
 */
async function leaveAsFound(client: Client, base: string, set: Settings, before: Settings | null, relayUrl: string): Promise<{ outcome: Outcome; note: string }> {
  const now = ((await client.call('GET', base)) as { data: Settings[] }).data.find((s) => s.id === set.id) ?? null;
  if (!now || now.url !== relayUrl) {
    return { outcome: 'left_changed', note: `The ${set.api} API endpoint was changed while listening (now ${now ? now.url : 'removed'}): left as it is.` };
  }
  if (before) {
    await client.call('PUT', base, { api: before.api, url: before.url, events: before.events });
    return { outcome: 'restored', note: `Restored the ${set.api} API endpoint ${before.url}.` };
  }
  await client.call('DELETE', `${base}/${seg(set.id)}`);
  return { outcome: 'removed', note: `Removed the ${set.api} API endpoint listen created (there was none before).` };
}

export const listenCommands: Command[] = [listen];

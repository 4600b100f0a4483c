// `test-clock create|advance|list` (issue 26): a merchant developer's test clocks, through the
// merchant API with a svc_test_ key, or the gateway API with an sk_test_ key (--key; not the operator
// token). `advance --by 31m` moves the clock from its current time; `--wait` returns once the clock is
// ready again (everything that became due has committed: expiries, voids, webhook retries).
import { defined, optString } from '../args.js';
import { UsageError, type Command, type OptionSpec } from '../command.js';
import { seg, type Client } from '../http.js';

const key: OptionSpec = { type: 'string', value: 'KEY', required: true, description: 'A test key: svc_test_… (merchant API) or sk_test_… (gateway API)' };
const WAIT_MS = 120_000;

const base = (k: string) => (k.startsWith('svc_') ? '/api/v2/test_helpers/test_clocks' : '/v2/test_helpers/test_clocks');

interface Clock { id: string; frozen_time: string; status: string }

/** "90s", "31m", "2h", "7d" (or a sum: "7d1m") in milliseconds; NaN when unreadable. */
export function parseDuration(v: string): number {
  const unit: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  if (!/^(\d+[smhd])+$/.test(v)) return NaN;
  let ms = 0;
  for (const [, n, u] of v.matchAll(/(\d+)([smhd])/g)) ms += Number(n) * unit[u];
  return ms;
}

async function waitReady(c: Client, path: string): Promise<Clock> {
  const end = Date.now() + WAIT_MS;
  for (;;) {
    const clock = await c.call('GET', path) as Clock;
    if (clock.status === 'ready' || Date.now() > end) return clock;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const create: Command = {
  path: ['test-clock', 'create'], args: [], summary: 'Create a test clock (test mode only)',
  options: {
    key,
    'frozen-time': { type: 'string', value: 'ISO', description: 'Its starting time, e.g. 2026-01-10T09:00:00Z (default: now)' },
    name: { type: 'string', value: 'NAME', description: 'A label' },
  },
  auth: false,
  async run({ opts, client }) {
    const k = optString(opts, 'key')!;
    const clock = await client.withToken(k).call('POST', base(k), defined({ frozen_time: optString(opts, 'frozen-time'), name: optString(opts, 'name') })) as Clock;
    return { data: clock, quiet: clock.id };
  },
};

const advance: Command = {
  path: ['test-clock', 'advance'], args: ['CLOCK_ID'], summary: 'Move a test clock forward; what became due fires on it',
  options: {
    key,
    to: { type: 'string', value: 'ISO', description: 'The new time' },
    by: { type: 'string', value: 'DURATION', description: 'Or how far from the clock\'s time: 90s, 31m, 2h, 7d, 7d1m' },
    wait: { type: 'boolean', description: 'Return once the clock is ready again (at most 120 s)' },
  },
  auth: false,
  async run({ args, opts, client }) {
    const k = optString(opts, 'key')!;
    const c = client.withToken(k);
    const path = `${base(k)}/${seg(args.CLOCK_ID)}`;
    const to = optString(opts, 'to');
    const by = optString(opts, 'by');
    if ((to === undefined) === (by === undefined)) throw new UsageError('give exactly one of --to and --by');
    let target = to;
    if (by !== undefined) {
      const ms = parseDuration(by);
      if (!(ms > 0)) throw new UsageError(`--by must look like 90s, 31m, 2h, 7d or 7d1m, got "${by}"`);
      const now = await c.call('GET', path) as Clock;
      target = new Date(Date.parse(now.frozen_time) + ms).toISOString();
    }
    let clock = await c.call('POST', `${path}/advance`, { frozen_time: target }) as Clock;
    if (opts.wait) clock = await waitReady(c, path);
    return { data: clock, quiet: `${clock.id} ${clock.frozen_time} ${clock.status}`, ok: !opts.wait || clock.status === 'ready' };
  },
};

const list: Command = {
  path: ['test-clock', 'list'], args: [], summary: 'List test clocks, newest first', options: { key, limit: { type: 'string', value: 'N', description: '1-100 (25)' } },
  auth: false,
  async run({ opts, client }) {
    const k = optString(opts, 'key')!;
    const limit = optString(opts, 'limit');
    return { data: await client.withToken(k).call('GET', `${base(k)}${limit ? `?limit=${seg(limit)}` : ''}`) };
  },
};

export const testClockCommands: Command[] = [create, advance, list];

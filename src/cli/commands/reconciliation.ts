// `recon` and `recon runs|show|differences|resolve|ignore|reopen|fault`: reconciliation of the engine
// with the bank (issue 26). `recon runs` exits 1 while any listed run has open differences, so a cron job
// or a shell check can alert on it; `recon fault` makes a difference on purpose in the sandbox bank.
import { defined, optInteger, optString } from '../args.js';
import type { Command, OptionSpec } from '../command.js';
import { seg } from '../http.js';

const base = '/internal/reconciliation';
const limit: OptionSpec = { type: 'string', value: 'N', description: '1-100 (20)' };
const note: OptionSpec = { type: 'string', value: 'TEXT', required: true, description: 'Why (kept with the difference)' };

interface RunList { data: { open_differences: number }[] }

const runs: Command = {
  path: ['recon', 'runs'], args: [], summary: 'Reconciliation runs, newest window first (exit 1 when one has open differences)',
  options: { limit, before: { type: 'string', value: 'RUN_ID', description: 'Only windows before this run\'s' } },
  auth: true,
  async run({ opts, client }) {
    const q = new URLSearchParams(defined({ limit: optString(opts, 'limit'), before: optString(opts, 'before') }) as Record<string, string>);
    const list = await client.call('GET', `${base}/runs${q.size ? `?${q}` : ''}`) as RunList;
    const open = list.data.reduce((n, r) => n + r.open_differences, 0);
    return { data: list, quiet: String(open), ok: open === 0 };
  },
};

const show: Command = {
  path: ['recon', 'show'], args: ['RUN_ID'], summary: 'One run with its differences', options: {}, auth: true,
  async run({ args, client }) { return { data: await client.call('GET', `${base}/runs/${seg(args.RUN_ID)}`) }; },
};

const differences: Command = {
  path: ['recon', 'differences'], args: [], summary: 'Differences, newest first (default: the open ones)',
  options: { status: { type: 'string', value: 'STATUS', choices: ['open', 'resolved', 'ignored', 'all'], description: 'open (default), resolved, ignored or all' }, limit },
  auth: true,
  async run({ opts, client }) {
    const status = optString(opts, 'status') ?? 'open';
    const q = new URLSearchParams(defined({ status: status === 'all' ? undefined : status, limit: optString(opts, 'limit') }) as Record<string, string>);
    const list = await client.call('GET', `${base}/differences${q.size ? `?${q}` : ''}`) as { data: unknown[] };
    return { data: list, quiet: String(list.data.length) };
  },
};

const mark = (status: 'resolved' | 'ignored' | 'open', summary: string): Command => ({
  path: ['recon', status === 'resolved' ? 'resolve' : status === 'ignored' ? 'ignore' : 'reopen'], args: ['DIFFERENCE_ID'], summary,
  options: status === 'open' ? {} : { note }, auth: true,
  async run({ args, opts, client }) {
    const d = await client.call('POST', `${base}/differences/${seg(args.DIFFERENCE_ID)}`, defined({ status, note: optString(opts, 'note') })) as { status: string };
    return { data: d, quiet: d.status };
  },
});

const fault: Command = {
  path: ['recon', 'fault'], args: ['ACTION'], summary: 'Sandbox bank only: add, lose, change_amount or change_outcome an operation on purpose',
  options: {
    key: { type: 'string', value: 'KEY', description: 'The operation\'s idempotency key (att_…); all actions but add' },
    kind: { type: 'string', value: 'KIND', choices: ['charge', 'capture', 'void', 'refund', 'payout'], description: 'add: the kind (charge)' },
    amount: { type: 'string', value: 'N', description: 'add, change_amount: minor units' },
    currency: { type: 'string', value: 'CCY', description: 'add, change_amount: ISO 4217 code' },
    outcome: { type: 'string', value: 'OUTCOME', choices: ['succeeded', 'failed', 'pending'], description: 'add (succeeded), change_outcome' },
  },
  auth: true,
  async run({ args, opts, client }) {
    const r = await client.call('POST', '/internal/sandbox/bank/faults', defined({
      action: args.ACTION, idempotency_key: optString(opts, 'key'), kind: optString(opts, 'kind'), amount: optInteger(opts, 'amount'),
      currency: optString(opts, 'currency'), outcome: optString(opts, 'outcome'),
    })) as { idempotency_key: string };
    return { data: r, quiet: r.idempotency_key };
  },
};

/** Bare `recon`: the open differences and the latest runs at a glance (last in the list: `recon runs` etc. match first). */
const overview: Command = {
  path: ['recon'], args: [], summary: 'Open differences and the latest runs (exit 1 while a difference is open)', options: {}, auth: true,
  async run({ client }) {
    const open = await client.call('GET', `${base}/differences?status=open&limit=100`) as { data: unknown[] };
    const latest = await client.call('GET', `${base}/runs?limit=5`) as RunList;
    return { data: { open_differences: open.data, latest_runs: latest.data }, quiet: String(open.data.length), ok: open.data.length === 0 };
  },
};

export const reconciliationCommands: Command[] = [
  runs, show, differences, mark('resolved', 'Mark a difference resolved, with a note'), mark('ignored', 'Mark a difference ignored, with a note'),
  mark('open', 'Open a resolved or ignored difference again'), fault, overview,
];

// `health`: GET /v2/health, public. Exit 0 while the server answers 200 (ok or degraded), 1 otherwise.
import type { Command } from '../command.js';

const health: Command = {
  path: ['health'],
  args: [],
  summary: 'Show the server\'s health (exit 1 unless it answers 200)',
  options: {},
  auth: false,
  async run({ client }) {
    const res = await client.raw('GET', '/v2/health');
    return { data: res.body, quiet: typeof res.body === 'object' && res.body && 'status' in res.body ? String(res.body.status) : undefined, ok: res.status === 200 };
  },
};

export const systemCommands: Command[] = [health];

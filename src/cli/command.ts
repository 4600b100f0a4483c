// The shape of one CLI command. Commands live in ./commands/*, one file per resource group, and are
// collected in ./commands/index.ts: adding a group (e.g. webhooks) is one new file and one import.
import type { Client } from './http.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** Placeholder shown in help, e.g. "N" or "AZN,USD". */
  value?: string;
  description: string;
  required?: boolean;
  /** Allowed values; anything else is a usage error (exit 2) before any request is sent. */
  choices?: readonly string[];
}

export type OptionValues = Record<string, string | boolean | undefined>;

export interface CommandInput {
  /** Positional arguments by the names declared in `args`. */
  args: Record<string, string>;
  opts: OptionValues;
  client: Client;
  /** Output while the command runs (long-running commands such as `listen`). */
  io: { out(text: string): void; err(text: string): void };
}

export interface Outcome {
  /** Printed as pretty JSON on stdout. */
  data: unknown;
  /** What `--quiet` prints instead of `data` (commands without it print `data` anyway). */
  quiet?: string;
  /** false: exit 1 after printing (e.g. `health` answering 503). */
  ok?: boolean;
}

export interface Command {
  /** Words that select the command, e.g. ['merchants', 'create']. */
  path: readonly string[];
  /** Positional argument names, all required, e.g. ['MERCHANT_ID']. */
  args: readonly string[];
  summary: string;
  options: Record<string, OptionSpec>;
  /** false for commands that work without the operator token. */
  auth: boolean;
  run(input: CommandInput): Promise<Outcome>;
}

/** A mistake in the command line: exit code 2, nothing sent to the server. */
export class UsageError extends Error {
  constructor(message: string, readonly command?: Command) {
    super(message);
    this.name = 'UsageError';
  }
}

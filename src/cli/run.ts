// The CLI as a function of (argv, env) -> exit code, with its output written through `io`, so that it
// can be driven in-process as well as from ./main.ts.
import { parse } from './args.js';
import { UsageError, type Command } from './command.js';
import { COMMANDS } from './commands/index.js';
import { commandHelp, overallHelp } from './help.js';
import { ApiError, Client } from './http.js';

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

export const EXIT_OK = 0;
export const EXIT_API = 1;
export const EXIT_USAGE = 2;

const DEFAULT_URL = 'http://127.0.0.1:3000';
const TIMEOUT_MS = 30_000;

export async function runCli(argv: string[], env: NodeJS.ProcessEnv, io: Io, commands: readonly Command[] = COMMANDS): Promise<number> {
  let command: Command | undefined;
  try {
    const parsed = parse(argv, commands);
    command = parsed.command ?? undefined;
    const [first, ...rest] = parsed.words;

    if (!parsed.command) {
      if (first === 'help' || (parsed.opts.help && !first)) return help(io, commands, rest.join(' '));
      if (parsed.opts.help && commands.some((c) => c.path[0] === first)) { io.out(overallHelp(commands, first)); return EXIT_OK; }
      throw new UsageError(first ? `unknown command "${parsed.words.join(' ')}"` : 'no command given');
    }
    if (parsed.opts.help) { io.out(commandHelp(parsed.command)); return EXIT_OK; }

    const opts = parsed.opts;
    const token = (typeof opts.token === 'string' ? opts.token : env.ADMIN_TOKEN) || null;
    if (parsed.command.auth && !token) throw new UsageError('no operator token: pass --token or set ADMIN_TOKEN');
    const baseUrl = (typeof opts.url === 'string' ? opts.url : env.PAYMENTS_URL) || DEFAULT_URL;
    if (!/^https?:\/\/[^/]/i.test(baseUrl)) throw new UsageError(`--url must be an http(s) URL, got "${baseUrl}"`);

    const client = new Client({ baseUrl, token, timeoutMs: TIMEOUT_MS });
    const outcome = await parsed.command.run({ args: parsed.args, opts, client, io });
    if (opts.quiet && outcome.quiet !== undefined) io.out(outcome.quiet + '\n');
    else io.out(JSON.stringify(outcome.data, null, 2) + '\n');
    return outcome.ok === false ? EXIT_API : EXIT_OK;
  } catch (err) {
    if (err instanceof UsageError) {
      const c = err.command ?? command;
      io.err(`error: ${err.message}\n${c ? `Usage: payments-engine ${[...c.path, ...c.args].join(' ')} [options]  (see --help)` : 'Run "payments-engine help" for the commands.'}\n`);
      return EXIT_USAGE;
    }
    if (err instanceof ApiError) {
      const where = err.status ? ` (HTTP ${err.status}${err.param ? `, param ${err.param}` : ''}${err.requestId ? `, request ${err.requestId}` : ''})` : '';
      io.err(`error: ${err.code}: ${err.message}${where}\n`);
      return EXIT_API;
    }
    throw err;
  }
}

function help(io: Io, commands: readonly Command[], topic: string): number {
  if (!topic) { io.out(overallHelp(commands)); return EXIT_OK; }
  const exact = commands.find((c) => c.path.join(' ') === topic);
  if (exact) { io.out(commandHelp(exact)); return EXIT_OK; }
  if (commands.some((c) => c.path[0] === topic)) { io.out(overallHelp(commands, topic)); return EXIT_OK; }
  io.err(`error: no command "${topic}"\nRun "payments-engine help" for the commands.\n`);
  return EXIT_USAGE;
}

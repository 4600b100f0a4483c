// Help text, generated from the command table so that it can never disagree with the parser.
import { GLOBAL_OPTIONS } from './args.js';
import type { Command, OptionSpec } from './command.js';

const BIN = 'payments-engine';

const usageLine = (c: Command) => [BIN, ...c.path, ...c.args].join(' ');

function optionLines(options: Record<string, OptionSpec>): string[] {
  const rows = Object.entries(options).map(([name, o]) => {
    const left = `--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
    return [left, `${o.description}${o.required ? ' (required)' : ''}`];
  });
  const width = Math.max(0, ...rows.map(([l]) => l.length));
  return rows.map(([l, r]) => `  ${l.padEnd(width)}  ${r}`);
}

/** Help for one command. */
export function commandHelp(c: Command): string {
  const lines = [`Usage: ${usageLine(c)}${Object.keys(c.options).length ? ' [options]' : ''}`, '', c.summary];
  if (Object.keys(c.options).length) lines.push('', 'Options:', ...optionLines(c.options));
  lines.push('', 'Global options:', ...optionLines(GLOBAL_OPTIONS));
  return lines.join('\n') + '\n';
}

/** Help for every command, optionally only those under a first word (e.g. "keys"). */
export function overallHelp(commands: readonly Command[], group?: string): string {
  const shown = commands.filter((c) => !group || c.path[0] === group);
  const width = Math.max(...shown.map((c) => usageLine(c).length));
  return [
    `Usage: ${BIN} <command> [arguments] [options]`,
    '',
    'Operator CLI for the payments engine (the /internal API, authenticated by ADMIN_TOKEN).',
    '',
    'Commands:',
    ...shown.map((c) => `  ${usageLine(c).padEnd(width)}  ${c.summary}`),
    `  ${`${BIN} help [command]`.padEnd(width)}  Show help`,
    '',
    'Global options:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    'Output is pretty-printed JSON on stdout. Exit codes: 0 ok, 1 API or connection error (code and',
    'message on stderr), 2 usage error.',
    `Run "${BIN} <command> --help" for a command's options.`,
  ].join('\n') + '\n';
}

// Command-line parsing: global options, the command chosen by its leading words, and the typed
// conversions of option values. Every mistake is a UsageError (exit 2).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, type Command, type OptionSpec, type OptionValues } from './command.js';

/** Options every command accepts. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  url: { type: 'string', value: 'URL', description: 'Server base URL (env PAYMENTS_URL, default http://127.0.0.1:3000)' },
  token: { type: 'string', value: 'TOKEN', description: 'Operator token (env ADMIN_TOKEN)' },
  quiet: { type: 'boolean', description: 'Print only the essential value: the key (keys create), the id (merchants create), the status (health)' },
  help: { type: 'boolean', description: 'Show help' },
};

export interface Parsed {
  command: Command | null;
  /** Leading words that named no command (for help and error messages). */
  words: string[];
  args: Record<string, string>;
  opts: OptionValues;
}

/** Parses argv against every command's options, then keeps only what the chosen command declares. */
export function parse(argv: string[], commands: readonly Command[]): Parsed {
  const all: Record<string, OptionSpec> = { ...GLOBAL_OPTIONS };
  for (const c of commands) Object.assign(all, c.options);
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, spec] of Object.entries(all)) options[name] = { type: spec.type };
  options.help = { type: 'boolean', short: 'h' };

  let values: OptionValues;
  let positionals: string[];
  try {
    const result = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    values = result.values as OptionValues; // no option is `multiple`, so no value is an array
    positionals = result.positionals;
  } catch (err) {
    const message = (err as Error).message;
    const unknown = /Unknown option '([^']+)'/.exec(message);
    throw new UsageError(unknown ? `unknown option ${unknown[1]}` : message.split('\n')[0]);
  }

  const command = commands.find((c) => c.path.every((w, i) => positionals[i] === w)) ?? null;
  if (!command) return { command: null, words: positionals, args: {}, opts: values };
  if (values.help) return { command, words: positionals, args: {}, opts: values };

  const rest = positionals.slice(command.path.length);
  if (rest.length < command.args.length) throw new UsageError(`missing ${command.args.slice(rest.length).join(' ')}`, command);
  if (rest.length > command.args.length) throw new UsageError(`unexpected argument "${rest[command.args.length]}"`, command);
  const args = Object.fromEntries(command.args.map((name, i) => [name, rest[i]]));

  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || name in GLOBAL_OPTIONS) continue;
    const spec = command.options[name];
    if (!spec) throw new UsageError(`option --${name} does not apply to "${command.path.join(' ')}"`, command);
    if (spec.choices && typeof value === 'string' && !spec.choices.includes(value)) {
      throw new UsageError(`--${name} must be one of ${spec.choices.join(', ')}, got "${value}"`, command);
    }
  }
  for (const [name, spec] of Object.entries(command.options)) {
    if (spec.required && values[name] === undefined) throw new UsageError(`--${name} is required`, command);
  }
  return { command, words: positionals, args, opts: values };
}

// Conversions of option values, used by the commands when they build request bodies.

export function optString(opts: OptionValues, name: string): string | undefined {
  const v = opts[name];
  return typeof v === 'string' ? v : undefined;
}

export function optNumber(opts: OptionValues, name: string): number | undefined {
  const v = optString(opts, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got "${v}"`);
  return n;
}

export function optInteger(opts: OptionValues, name: string): number | undefined {
  const n = optNumber(opts, name);
  if (n !== undefined && !Number.isSafeInteger(n)) throw new UsageError(`--${name} must be a whole number, got "${opts[name]}"`);
  return n;
}

/** An integer, or `none` to clear the setting (sent as null). */
export function optIntegerOrNone(opts: OptionValues, name: string): number | null | undefined {
  return optString(opts, name)?.toLowerCase() === 'none' ? null : optInteger(opts, name);
}

export function optBoolean(opts: OptionValues, name: string): boolean | undefined {
  const v = optString(opts, name)?.toLowerCase();
  if (v === undefined) return undefined;
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new UsageError(`--${name} must be true or false, got "${opts[name]}"`);
}

/** A comma-separated list; empty items are dropped. */
export function optList(opts: OptionValues, name: string, map: (s: string) => string = (s) => s): string[] | undefined {
  const v = optString(opts, name);
  if (v === undefined) return undefined;
  const items = v.split(',').map((s) => map(s.trim())).filter(Boolean);
  if (!items.length) throw new UsageError(`--${name} needs at least one value`);
  return items;
}

/** Drops undefined fields so that the JSON body carries only what the operator gave. */
export function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

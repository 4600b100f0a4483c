// Headless Debian Chromium driven by playwright-core (never a browser downloaded by a test tool).
// Tests skip with a message when /usr/bin/chromium (or CHROMIUM_PATH) is missing.
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { redactOptions } from '../../src/log.js';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const noBrowser = existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM}: install Debian's chromium package (apt-get install -y chromium)`;
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const ARTIFACTS = fileURLToPath(new URL('../../../test/artifacts/', import.meta.url));
export function artifact(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return `${ARTIFACTS}${name}.png`;
}

/** A logger like the server's (same redaction) whose lines are kept in memory for inspection. */
export function capturingLogger() {
  const lines: string[] = [];
  const log = pino({ level: 'debug', ...redactOptions }, { write: (l: string) => { lines.push(l); } });
  return { log, lines };
}

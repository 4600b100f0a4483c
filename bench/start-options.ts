// The node options `npm start` gives the server by default (package.json's start script, the one
// place they are written), so that the benchmark measures the server as it is started. The script
// puts them before the caller's own NODE_OPTIONS, so that an operator's flag wins (V8 takes the
// last); the bench's BENCH_NODE_ARGS are on the command line, which wins over NODE_OPTIONS.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PACKAGE = fileURLToPath(new URL('../../package.json', import.meta.url));

/** The defaults of the start script: `NODE_OPTIONS="<defaults> ${NODE_OPTIONS:-}" node ...`. */
export function startScriptNodeOptions(script = (JSON.parse(readFileSync(PACKAGE, 'utf8')) as { scripts: Record<string, string> }).scripts.start): string {
  const m = /NODE_OPTIONS="([^"$]*)\$\{NODE_OPTIONS:-\}" node /.exec(script ?? '');
  if (!m) throw new Error(`package.json's start script no longer reads NODE_OPTIONS="<defaults> \${NODE_OPTIONS:-}" node ...: ${script}`);
  return m[1].trim();
}


#!/usr/bin/env node
// `payments-engine` (bin) / `npm run cli --`: the operator CLI. See ./run.ts and docs/operations.md.
import { runCli } from './run.js';

runCli(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
}).then((code) => {
  process.exitCode = code;
}, (err: unknown) => {
  process.stderr.write(`error: internal: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});

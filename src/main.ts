// `npm start`: runs the full server and prints how to reach it.
import { loadConfig, type Config } from './config.js';
import { BatchedLines, createLogger } from './log.js';
import { startServer } from './server.js';

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  // A configuration the server must not run with: say what to set, and stop before doing anything.
  process.stderr.write(`payments-engine: cannot start: ${(err as Error).message}\n`);
  process.exit(1);
}
const log = createLogger(config.logLevel);

// The signal handlers come before anything is printed: a supervisor (or a test) that sends SIGTERM
// as soon as it reads "listening" or the banner must get a clean stop, not the default action's
// death. A signal during the start is kept and honoured as soon as the server is up.
let server: Awaited<ReturnType<typeof startServer>> | null = null;
let stopping: string | null = null;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = signal;
  log.info({ signal, deadlineMs: config.shutdownTimeoutMs, starting: !server }, 'shutting down: finishing in-flight work');
  // close() bounds each of its steps; this is the last resort if something still holds the loop (or
  // if the start itself never ends, as against a database that never answers).
  setTimeout(() => { log.error('shutdown over its deadline: exiting now'); process.exit(1); }, config.shutdownTimeoutMs + 2_000).unref();
  if (server) closeAndExit(server);
};
function closeAndExit(srv: NonNullable<typeof server>): void {
  srv.close().then(() => process.exit(0), (err) => { log.error({ err }, 'shutdown failed'); process.exit(1); });
}
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
// The first line, before anything is connected: from here on a signal is a clean stop.
log.info({ node: process.version, workers: config.workers, database: config.databaseUrl ? 'DATABASE_URL' : 'embedded' }, 'starting');

// Access lines are written in batches (log.ts BatchedLines): one write per event-loop turn, not per request.
startServer(config, log, new BatchedLines()).then((srv) => {
  server = srv;
  if (stopping) { closeAndExit(srv); return; }
  const lines = [
    '',
    `  Payments engine listening on ${srv.url}  (public base ${config.publicBaseUrl})`,
    `  Operator token (Authorization: Bearer ...): ${config.adminToken ? '(from ADMIN_TOKEN)' : srv.adminToken}`,
    // The CLI's settings for this server, whatever its port, ready to paste into another terminal.
    `  For the CLI (npm run cli -- help): export PAYMENTS_URL=${srv.url}${config.adminToken ? '' : ` ADMIN_TOKEN=${srv.adminToken}`}`,
  ];
  if (srv.demo) {
    lines.push(
      `  Demo merchant ${srv.demo.merchantId}, test keys${config.databaseUrl ? ' (new at every start)' : ` (kept in ${config.dataDir}, same at every start)`}:`,
      `    merchant API   ${srv.demo.merchantKey}`,
      `    gateway secret ${srv.demo.secretKey}`,
      `    publishable    ${srv.demo.publishableKey}`,
      `  Try: curl -s ${srv.url}/api/v2/payments -H "Authorization: Bearer ${srv.demo.merchantKey}" -H 'Content-Type: application/json' -d '{"amount":4900}'`,
      `  Embedded form demo: ${config.publicBaseUrl}/demo`,
    );
  }
  // Printed on stdout on purpose: this is the operator's own terminal, not the structured log.
  process.stdout.write(lines.join('\n') + '\n\n');
}).catch((err) => {
  log.fatal({ err: { message: (err as Error).message } }, 'start failed');
  process.exit(1);
});

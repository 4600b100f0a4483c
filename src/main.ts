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

// Access lines are written in batches (log.ts BatchedLines): one write per event-loop turn, not per request.
startServer(config, log, new BatchedLines()).then((srv) => {
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

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, deadlineMs: config.shutdownTimeoutMs }, 'shutting down: finishing in-flight work');
    // close() bounds each of its steps; this is the last resort if something still holds the loop.
    setTimeout(() => { log.error('shutdown over its deadline: exiting now'); process.exit(1); }, config.shutdownTimeoutMs + 2_000).unref();
    srv.close().then(() => process.exit(0), (err) => { log.error({ err }, 'shutdown failed'); process.exit(1); });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}).catch((err) => {
  log.fatal({ err: { message: (err as Error).message } }, 'start failed');
  process.exit(1);
});

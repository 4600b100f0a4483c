// Baseline A: the cheapest possible uWebSockets.js JSON answer, run as a child process.
// Prints one JSON line {"msg":"listening","port":N} on stdout when ready; port 0 picks a free port.
import uWS from 'uWebSockets.js';

const native = typeof (uWS as unknown as { getParts?: unknown }).getParts === 'function';
const u = uWS as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT: number; us_socket_local_port(s: unknown): number };
const body = JSON.stringify({ hello: 'world' });

const app = uWS.App().any('/*', (res) => {
  res.cork(() => {
    res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json').end(body);
  });
});

type Listen = (h: string, p: number, o: number, cb: (s: unknown) => void) => void;
(app.listen as unknown as Listen)('127.0.0.1', Number(process.env.PORT ?? 0), u.LIBUS_LISTEN_EXCLUSIVE_PORT, (sock) => {
  if (!sock) {
    process.stderr.write('baseline-uws: cannot listen\n');
    process.exit(1);
  }
  process.stdout.write(JSON.stringify({ msg: 'listening', port: u.us_socket_local_port(sock), native }) + '\n');
});

process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));

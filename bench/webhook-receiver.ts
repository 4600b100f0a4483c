// The merchant's end of the webhook scenario, in a process of its own so it never competes with the
// load generator's event loop. Loopback only. It verifies every delivery on its own (HMAC-SHA256 of
// `<t>.<raw body>`, constant-time compare, 300 s tolerance: not the server's helper, so a bug shared
// by signer and verifier cannot hide), answers 200 (400 on a bad signature) and records, per event,
// arrival − created_at (the event's decision, just before its commit, to delivery; same machine clock) and when the payment expired
// relative to its window. Control: PUT /secret (raw body: the endpoint secret), GET /stats?from=&to=.
// Prints {"msg":"listening","port":n} when ready. Env: BENCH_WINDOW_MS (1000), BENCH_WEBHOOK_ANSWER_MS (0:
// answer each delivery this long after it arrived, as a remote endpoint's round trip would).
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { percentile } from './stats.js';

const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? 1000);
const TOLERANCE_S = 300;
const ANSWER_MS = Number(process.env.BENCH_WEBHOOK_ANSWER_MS ?? 0);

let secret = '';
const seen = new Set<string>();
// One entry per first arrival of an event id.
const arrivals: number[] = [];
const committed: number[] = [];
const expiryLag: number[] = [];
let duplicates = 0, signatureFailures = 0, malformed = 0, lastArrivalMs = 0, connections = 0;

function signatureOk(raw: Buffer, header: string | undefined, now: number): boolean {
  if (!header || !secret) return false;
  let t = NaN;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.split('=', 2).map((x) => x.trim());
    if (k === 't' && /^\d{1,12}$/.test(v)) t = Number(v);
    else if (k === 'v1' && /^[0-9a-f]{64}$/.test(v)) v1.push(v);
  }
  if (!Number.isFinite(t) || v1.length === 0 || Math.abs(now / 1000 - t) > TOLERANCE_S) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(raw).digest();
  return v1.some((v) => timingSafeEqual(Buffer.from(v, 'hex'), expected));
}

function record(raw: Buffer, eventIdHeader: string | undefined, arrival: number): void {
  const event = JSON.parse(raw.toString('utf8')) as { id: string; created_at: string; data: { object: { created_at: string } } };
  if (event.id !== eventIdHeader) throw new Error('X-Svc-Event-Id differs from the body');
  lastArrivalMs = arrival;
  if (seen.has(event.id)) { duplicates++; return; }
  seen.add(event.id);
  const at = Date.parse(event.created_at);
  arrivals.push(arrival);
  committed.push(at);
  expiryLag.push(at - Date.parse(event.data.object.created_at) - WINDOW_MS);
}

function stats(from: number, to: number) {
  const lat: number[] = [];
  const lag: number[] = [];
  const allLat: number[] = [];
  let arrivedInWindow = 0;
  for (let i = 0; i < arrivals.length; i++) {
    const d = arrivals[i] - committed[i];
    allLat.push(d);
    if (arrivals[i] >= from && arrivals[i] < to) arrivedInWindow++;
    if (committed[i] >= from && committed[i] < to) { lat.push(d); lag.push(expiryLag[i]); }
  }
  for (const a of [lat, lag, allLat]) a.sort((x, y) => x - y);
  const seconds = Math.max(0.001, (to - from) / 1000);
  return {
    received: arrivals.length, connections, duplicates, signatureFailures, malformed, lastArrivalMs,
    arrivedInWindow, perSecond: Math.round(arrivedInWindow / seconds),
    committedInWindow: lat.length, p50: percentile(lat, 50), p99: percentile(lat, 99), max: lat.at(-1) ?? 0,
    expiryLagP50: percentile(lag, 50), expiryLagP99: percentile(lag, 99),
    allP99: percentile(allLat, 99), allMax: allLat.at(-1) ?? 0,
  };
}

const server = http.createServer((req, res) => {
  const arrival = Date.now();
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    if (req.method === 'POST' && req.url === '/hooks') {
      if (!signatureOk(raw, req.headers['x-svc-signature'] as string | undefined, Date.now())) {
        signatureFailures++;
        return res.writeHead(400).end();
      }
      try { record(raw, req.headers['x-svc-event-id'] as string | undefined, arrival); } catch { malformed++; }
      if (ANSWER_MS > 0) return void setTimeout(() => res.writeHead(200).end(), ANSWER_MS);
      return res.writeHead(200).end();
    }
    if (req.method === 'PUT' && req.url === '/secret') {
      secret = raw.toString('utf8');
      return res.writeHead(204).end();
    }
    const u = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && u.pathname === '/stats') {
      const body = JSON.stringify(stats(Number(u.searchParams.get('from') ?? 0), Number(u.searchParams.get('to') ?? Date.now())));
      return res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    }
    res.writeHead(404).end();
  });
});
server.keepAliveTimeout = 30_000;
// Connections accepted (the control requests' few included): the other end of the server's webhook_requests_total{socket="new"}.
server.on('connection', () => { connections++; });
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(JSON.stringify({ msg: 'listening', port: typeof addr === 'object' && addr ? addr.port : 0 }) + '\n');
});
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
// Stop with the benchmark even if it dies without signalling us.
process.on('disconnect', () => process.exit(0));
setInterval(() => { if (process.ppid === 1) process.exit(0); }, 1000).unref();

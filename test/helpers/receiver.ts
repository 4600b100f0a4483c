// A real HTTP receiver on loopback that records every webhook it gets and answers as scripted.
import http from 'node:http';
import crypto from 'node:crypto';

export interface Received { headers: http.IncomingHttpHeaders; body: string; at: number; path: string }
/** `hold`: answer once it settles (the receiver's close answers every held request at once). */
export type Script = (r: Received, n: number) => { status: number; headers?: Record<string, string>; delayMs?: number; hold?: Promise<unknown> };

export interface Receiver {
  url: string;
  received: Received[];
  script: Script;
  close(): Promise<void>;
  waitFor(n: number, ms?: number): Promise<Received[]>;
}

export async function startReceiver(script: Script = () => ({ status: 200 })): Promise<Receiver> {
  const received: Received[] = [];
  const held = new Set<() => void>();
  const r: Partial<Receiver> = { received, script };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const rec = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), path: req.url ?? '' };
      received.push(rec);
      const out = r.script!(rec, received.length);
      const answer = () => { held.delete(answer); if (!res.destroyed && !res.headersSent) { res.writeHead(out.status, out.headers); res.end('ok'); } };
      if (out.hold) { held.add(answer); void out.hold.then(answer, answer); } else if (out.delayMs) setTimeout(answer, out.delayMs); else answer();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return Object.assign(r, {
    url: `http://127.0.0.1:${port}/hooks`,
    close: () => new Promise<void>((resolve) => { for (const answer of [...held]) answer(); server.closeAllConnections(); server.close(() => resolve()); }),
    // Returns what arrived by then, also when fewer than n did: the caller's assertion says what is missing.
    async waitFor(n: number, ms = 30_000) {
      const end = Date.now() + ms;
      while (received.length < n && Date.now() < end) await new Promise((x) => setTimeout(x, 20));
      return received;
    },
  }) as Receiver;
}

/** Checks X-Svc-Signature (t=..,v1=..) with an HMAC computed here, not with the engine's code. */
export function signatureValid(rec: Received, secret: string): boolean {
  const header = String(rec.headers['x-svc-signature'] ?? '');
  const t = /(?:^|,)t=(\d+)/.exec(header)?.[1];
  const sigs = [...header.matchAll(/v1=([0-9a-f]{64})/g)].map((m) => m[1]);
  if (!t) return false;
  const expected = crypto.createHmac('sha256', secret).update(`${t}.${rec.body}`).digest('hex');
  return sigs.includes(expected);
}

// One webhook POST: keep-alive pools, a time-out, no redirects, and a connection made only to an
// address that passed the SSRF rules after resolution (the checked address is the one connected
// to, so a second DNS answer cannot rebind it).
import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isAllowedAddress, type PrivateReach } from '../src/domain/address.js';

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

/** `reused`: whether the request went out on a kept-alive connection (null: no connection was had). */
export interface PostResult { status: number | null; retryAfter: string | null; error: string | null; durationMs: number; reused: boolean | null }

// No socket limit per host here: the dispatcher bounds requests per endpoint and in all
// (WEBHOOK_ENDPOINT_CONCURRENCY, WEBHOOK_CONCURRENCY). A per-host limit would make endpoints that
// share a host (two merchants on one hosting service) queue behind each other's slow requests, and
// a request queued for a socket would spend its time-out before it was sent.
const agents = {
  http: new http.Agent({ keepAlive: true, keepAliveMsecs: 10_000 }),
  https: new https.Agent({ keepAlive: true, keepAliveMsecs: 10_000 }),
};

export class AddressRefused extends Error {
  constructor(host: string) { super(`address_not_allowed: ${host} resolves to an address that is not allowed`); }
}

function checkedLookup(resolve: Resolver, allowPrivate: PrivateReach): LookupFunction {
  return ((host: string, options: { all?: boolean }, cb: (err: Error | null, address: unknown, family?: number) => void) => {
    resolve(host).then((addrs) => {
      // Every answer must pass: a name that also points inside is refused outright.
      if (addrs.length === 0 || !addrs.every((a) => isAllowedAddress(a.address, allowPrivate))) return cb(new AddressRefused(host), null);
      if (options?.all) cb(null, addrs.map((a) => ({ address: a.address, family: a.family })));
      else cb(null, addrs[0].address, addrs[0].family);
    }, (err: Error) => cb(err, null));
  }) as unknown as LookupFunction;
}

export function postWebhook(url: URL, body: string, headers: Record<string, string>, o: { timeoutMs: number; allowPrivate: PrivateReach; resolve: Resolver }): Promise<PostResult> {
  const started = performance.now();
  let reused: boolean | null = null;
  const done = (r: Omit<PostResult, 'durationMs' | 'reused'>): PostResult => ({ ...r, durationMs: Math.round(performance.now() - started), reused });
  const isHttps = url.protocol === 'https:';
  return new Promise((resolvePromise) => {
    let settled = false;
    const finish = (r: Omit<PostResult, 'durationMs' | 'reused'>) => { if (!settled) { settled = true; resolvePromise(done(r)); } };
    const req = (isHttps ? https : http).request({
      protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || (isHttps ? 443 : 80),
      path: `${url.pathname}${url.search}`, method: 'POST', agent: isHttps ? agents.https : agents.http,
      lookup: checkedLookup(o.resolve, o.allowPrivate), servername: isHttps ? url.hostname : undefined,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'payments-engine-webhooks/1', ...headers },
      timeout: o.timeoutMs,
    }, (res) => {
      // The body is not needed; read a little so the socket can be reused, then stop.
      let seen = 0;
      res.on('data', (c: Buffer) => { seen += c.length; if (seen > 64 * 1024) res.destroy(); });
      res.on('end', () => finish({ status: res.statusCode ?? null, retryAfter: (res.headers['retry-after'] as string) ?? null, error: null }));
      res.on('error', () => finish({ status: res.statusCode ?? null, retryAfter: null, error: null }));
    });
    // Connected (or handed a kept-alive socket): the request is on its way. reusedSocket is set by then.
    req.on('socket', (socket) => {
      if (req.reusedSocket) reused = true;
      else socket.once('connect', () => { reused = false; });
    });
    const timer = setTimeout(() => { req.destroy(new Error(`timeout after ${o.timeoutMs} ms`)); }, o.timeoutMs);
    req.on('timeout', () => req.destroy(new Error(`timeout after ${o.timeoutMs} ms`)));
    req.on('error', (err) => finish({ status: null, retryAfter: null, error: err.message.slice(0, 300) }));
    req.on('close', () => clearTimeout(timer));
    req.end(body);
  });
}

// A TCP proxy of our own between a server and Postgres, to make faults on demand. `stall()` stops
// forwarding in both directions without closing anything (a silent partition: the sockets stay
// open, the bytes wait in the proxy's buffers); `resume()` forwards again; `dropAll()` resets every
// open connection at once (new ones are accepted). Loopback only. The simulator (sim/) uses it too.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** `postgres://...` URL of `target` with host and port replaced by the proxy's. */
  url(target: string): string;
  stall(): void;
  resume(): void;
  /** Resets every connection open through the proxy now (both sides); later connections work. */
  dropAll(): void;
  /** Connections currently open through the proxy. */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let stalled = false;
  const pairs = new Set<[net.Socket, net.Socket]>();

  // Forwards a -> b; while stalled, a is paused (its data stays in the kernel and in a's buffer).
  const forward = (a: net.Socket, b: net.Socket) => {
    a.on('data', (chunk) => { if (!b.write(chunk)) a.pause(); });
    b.on('drain', () => { if (!stalled) a.resume(); });
    a.on('end', () => b.end());
  };

  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    if (stalled) { client.pause(); upstream.pause(); }
    forward(client, upstream);
    forward(upstream, client);
    const done = () => { pairs.delete(pair); client.destroy(); upstream.destroy(); };
    client.on('close', done);
    upstream.on('close', done);
    client.on('error', done);
    upstream.on('error', done);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    url(target: string) {
      const u = new URL(target);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    stall() {
      stalled = true;
      for (const [a, b] of pairs) { a.pause(); b.pause(); }
    },
    resume() {
      stalled = false;
      for (const [a, b] of pairs) { a.resume(); b.resume(); }
    },
    dropAll() {
      for (const [a, b] of pairs) { a.resetAndDestroy(); b.resetAndDestroy(); }
      pairs.clear();
    },
    get connections() { return pairs.size; },
    async close() {
      for (const [a, b] of pairs) { a.destroy(); b.destroy(); }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

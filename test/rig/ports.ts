// Ports for the rig's own servers (replicas, nginx, Redis cluster nodes), taken below the kernel's
// ephemeral range (Linux: 32768-60999). A port found free there is not handed out meanwhile to a
// server of a parallel test that listens on port 0, as an ephemeral one can be between the probe
// and the child's bind (seen in CI: another test's server answered on a replica's port, and every
// operator call through nginx came back 401). A Redis node's cluster bus (its port + 10000) stays
// a valid port too.
import net from 'node:net';

const LOW = 20_000;
const HIGH = 32_000;

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** `n` distinct ports of 127.0.0.1 below the ephemeral range, free when probed, none in `avoid`. */
export async function rigPorts(n: number, avoid: readonly number[] = []): Promise<number[]> {
  const out: number[] = [];
  for (let tries = 0; out.length < n; tries++) {
    if (tries > 1000) throw new Error(`no ${n} free ports in ${LOW}-${HIGH}`);
    const p = LOW + Math.floor(Math.random() * (HIGH - LOW));
    const clash = (q: number) => q === p || q === p + 10_000 || q + 10_000 === p;
    if (out.some(clash) || avoid.some(clash)) continue;
    if ((await bindable(p)) && (await bindable(p + 10_000))) out.push(p);
  }
  return out;
}

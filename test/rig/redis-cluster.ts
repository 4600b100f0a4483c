// A local Redis Cluster of three masters (no replicas) on free ports, for the scale-out rig: each
// node a real `redis-server --cluster-enabled yes` in its own directory, joined by
// `redis-cli --cluster create`. A master can be stopped (SIGKILL) and started again on its port
// with its nodes.conf, which rejoins it with the same slots. Everything is killed and removed in
// close(); the machine's own Redis (6379) is never touched.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rigPorts } from './ports.js';
import { until } from '../helpers/wait.js';
import { killOnExit } from './reaper.js';

export interface RedisNode { port: number; dir: string; proc: ChildProcess | null }

export interface RedisCluster {
  nodes: RedisNode[];
  /** `redis-cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3`, as REDIS_URL. */
  url: string;
  /** SIGKILLs master i (its slots have no owner until it is started again). */
  stop(i: number): Promise<void>;
  /** Starts master i again on its port; resolves when the cluster answers for every slot. */
  start(i: number): Promise<void>;
  /** `cluster_state` as node i sees it. */
  state(i: number): string;
  close(): Promise<void>;
}

/** Whether redis-server and redis-cli can run here; a reason string when not. */
export function redisClusterMissing(): string | false {
  for (const bin of ['redis-server', 'redis-cli']) {
    const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
    if (r.status !== 0) return `${bin} is not installed (apt-get install -y redis-server)`;
  }
  return false;
}

function cli(port: number, ...args: string[]): string {
  const r = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8', timeout: 10_000 });
  return `${r.stdout ?? ''}${r.stderr ?? ''}`;
}

async function startNode(n: RedisNode, nodeTimeoutMs: number): Promise<void> {
  const proc = spawn('redis-server', [
    '--port', String(n.port), '--bind', '127.0.0.1', '--dir', n.dir,
    '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(nodeTimeoutMs),
    // Keys of the masters that stay up keep answering while one is down (the partial failure the
    // breaker is about); a cache needs no persistence.
    '--cluster-require-full-coverage', 'no', '--save', '', '--appendonly', 'no', '--protected-mode', 'no',
  ], { stdio: 'ignore' });
  n.proc = proc;
  killOnExit(proc);
  await until(`redis node ${n.port}`, () => cli(n.port, 'ping').includes('PONG'), 10_000, 50);
}

export async function startRedisCluster(opts: { nodeTimeoutMs?: number } = {}): Promise<RedisCluster> {
  const nodeTimeoutMs = opts.nodeTimeoutMs ?? 2000;
  const root = mkdtempSync(path.join(os.tmpdir(), 'pe-redis-cluster-'));
  const nodes: RedisNode[] = [];
  const close = async () => {
    for (const n of nodes) n.proc?.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.proc && n.proc.exitCode === null && n.proc.signalCode === null
      ? new Promise((r) => n.proc!.once('exit', r)) : null));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const ports = await rigPorts(3);
    for (const port of ports) {
      const dir = path.join(root, String(port));
      mkdirSync(dir);
      nodes.push({ port, dir, proc: null });
    }
    await Promise.all(nodes.map((n) => startNode(n, nodeTimeoutMs)));
    const out = cli(nodes[0].port, '--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes');
    if (!out.includes('All 16384 slots covered')) throw new Error(`redis-cli --cluster create failed:\n${out}`);
    const allOk = () => nodes.every((n) => cli(n.port, 'cluster', 'info').includes('cluster_state:ok'));
    await until('redis cluster state ok', allOk, 20_000, 100);
    return {
      nodes,
      url: `redis-cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`,
      async stop(i) {
        const n = nodes[i];
        if (!n.proc || n.proc.exitCode !== null || n.proc.signalCode !== null) return;
        const exited = new Promise((r) => n.proc!.once('exit', r));
        n.proc.kill('SIGKILL');
        await exited;
      },
      async start(i) {
        await startNode(nodes[i], nodeTimeoutMs);
        await until('redis cluster state ok after restart', allOk, 30_000, 100);
      },
      state: (i) => /cluster_state:(\w+)/.exec(cli(nodes[i].port, 'cluster', 'info'))?.[1] ?? 'unreachable',
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

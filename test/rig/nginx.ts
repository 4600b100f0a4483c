// nginx in front of the rig's server processes, configured from deploy/nginx.conf, the template
// docker-compose.yml's load balancer renders too: the same placeholders (LB_LISTEN, LB_SERVERS),
// rendered here the way nginx's entrypoint does (envsubst of the named variables), inside a main
// configuration of our own (prefix, pid file, temp paths and logs in a temporary directory). The
// system's nginx service is never started or touched.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from '../helpers/wait.js';
import { killOnExit } from './reaper.js';

/** deploy/nginx.conf (this file runs as dist/test/rig/nginx.js). */
export const NGINX_TEMPLATE = fileURLToPath(new URL('../../../deploy/nginx.conf', import.meta.url));

/** The placeholders of the template; docker-compose.yml's `lb` service sets each of them. */
export const TEMPLATE_VARIABLES = ['LB_LISTEN', 'LB_SERVERS'] as const;

export function nginxMissing(): string | false {
  const r = spawnSync('nginx', ['-v'], { encoding: 'utf8' });
  return r.status === 0 ? false : 'nginx is not installed (apt-get install -y nginx; .ci/run does it)';
}

/** Replaces `${NAME}` for every NAME given; throws when the template holds a placeholder not given. */
export function renderTemplate(template: string, values: Record<string, string>): string {
  const out = template.replace(/\$\{([A-Z][A-Z0-9_]*)\}/g, (m, name: string) => {
    if (!(name in values)) throw new Error(`nginx template placeholder ${m} has no value`);
    return values[name];
  });
  return out;
}

export interface Nginx { port: number; url: string; dir: string; close(): Promise<void> }

/** Starts nginx on `port` balancing over `upstreams` (host:port each). */
export async function startNginx(port: number, upstreams: string[]): Promise<Nginx> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pe-nginx-'));
  const site = renderTemplate(readFileSync(NGINX_TEMPLATE, 'utf8'), {
    LB_LISTEN: `127.0.0.1:${port}`,
    LB_SERVERS: upstreams.map((u) => `server ${u} max_fails=2 fail_timeout=5s;`).join('\n    '),
  });
  writeFileSync(path.join(dir, 'site.conf'), site);
  const user = os.userInfo();
  writeFileSync(path.join(dir, 'nginx.conf'), [
    // As root, the workers would switch to `nobody`, who cannot write our temporary directory.
    ...(user.uid === 0 ? ['user root;'] : []),
    'daemon off;', 'worker_processes 1;', `pid ${dir}/nginx.pid;`, `error_log ${dir}/error.log warn;`,
    'events { worker_connections 4096; }',
    'http {',
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `  ${k}_temp_path ${dir}/${k};`),
    `  include ${dir}/site.conf;`,
    '}', '',
  ].join('\n'));
  const proc: ChildProcess = spawn('nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
  killOnExit(proc);
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await until('nginx listening', async () => {
      if (proc.exitCode !== null) throw new Error(`nginx exited ${proc.exitCode}: ${stderr}${readLog(dir)}`);
      return fetch(`${url}/v2/health`, { signal: AbortSignal.timeout(2000) }).then(() => true, () => false);
    }, 20_000, 100);
  } catch (err) {
    proc.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    port, url, dir,
    async close() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM'); // fast shutdown of master and workers
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function readLog(dir: string): string {
  try { return readFileSync(path.join(dir, 'error.log'), 'utf8'); } catch { return ''; }
}

// Runs the real server entry point (dist/src/main.js) as a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BUSY_MACHINE_DEADLINES } from './env.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));
/** The checkout's root (dist/test/helpers is three folders down). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface Child { proc: ChildProcess; url: string; exited: Promise<number | null>; output: () => string }

/** A spawned server entry point whose output is collected; `exited` resolves with its exit code. */
export interface Spawned { proc: ChildProcess; exited: Promise<number | null>; output: () => string }

/**
 * Spawns the real entry point with the tests' defaults under `env`, without waiting for anything.
 * `shell`: a command line to run with sh in the checkout's root instead (a package.json script's).
 */
export function spawnMain(env: Record<string, string>, onData?: (outputSoFar: string) => void, shell?: string): Spawned {
  // The busy machine's deadlines unless the test sets its own, as for an in-process test server.
  const merged: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...BUSY_MACHINE_DEADLINES, ...env };
  // With DATABASE_URL the server needs its own fingerprint key; a test that passes one (even '') keeps it.
  if (merged.DATABASE_URL && merged.CARD_FINGERPRINT_KEY === undefined) merged.CARD_FINGERPRINT_KEY = 'test-fingerprint-key-not-secret';
  const proc = shell === undefined
    ? spawn(process.execPath, [MAIN], { env: merged, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('sh', ['-c', shell], { cwd: ROOT, env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  // A death by signal is written into the output, so a test that reads it says which signal.
  const exited = new Promise<number | null>((r) => proc.on('exit', (code, signal) => { if (signal) out += `\n[the server ended by ${signal}]\n`; r(code); }));
  const collect = (d: Buffer) => { out += d.toString(); onData?.(out); };
  proc.stdout!.on('data', collect);
  proc.stderr!.on('data', collect);
  return { proc, exited, output: () => out };
}

export function startChild(env: Record<string, string>, timeoutMs = 30_000): Promise<Child> {
  let listening = false;
  let seen: (out: string) => void = () => {};
  const { proc, exited, output } = spawnMain(env, (out) => seen(out));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`server did not start:\n${output()}`)); }, timeoutMs);
    seen = (out: string) => {
      if (listening) return; // the output keeps growing (access log): parse it only until the start
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const j = JSON.parse(line);
          if (j.msg === 'listening') { listening = true; clearTimeout(timer); resolve({ proc, url: j.url, exited, output }); return; }
        } catch { /* partial line */ }
      }
    };
    void exited.then((code) => { clearTimeout(timer); reject(new Error(`server exited with ${code} before listening:\n${output()}`)); });
  });
}

export interface ChildAnswer { status: number; body: any; text: string; headers: Headers }

/**
 * One JSON request to a server child: `key` as the Bearer token (null: none), extra `headers`, at
 * most 15 s; `body` is the parsed answer when it is JSON, else null (`text` holds it as sent).
 */
export async function callChild(c: Child, method: string, p: string, key: string | null, body?: unknown, headers: Record<string, string> = {}): Promise<ChildAnswer> {
  const h: Record<string, string> = { 'content-type': 'application/json', ...headers };
  if (key) h.authorization = `Bearer ${key}`;
  const r = await fetch(c.url + p, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
  const text = await r.text();
  let parsed: any = null;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, body: parsed, text, headers: r.headers };
}

interface Tap { pass(message: string): void }

/**
 * Sends a request to `c`, whose failpoint kills it on the way, until `c` has died, as a client
 * retries with its key. On a busy machine the first try may be answered before the failpoint is
 * reached (a pool wait or the request deadline ran out first): a test that only waited for the exit
 * would then hang until tap's timeout. Fails with the answers seen when `c` is still alive after
 * `deadlineMs` (a request refused for good never reaches the failpoint).
 */
export async function sendUntilDead(t: Tap, c: Child, send: () => Promise<unknown>, message = 'the process died at its failpoint', deadlineMs = 60_000): Promise<void> {
  let dead = false;
  void c.exited.then(() => { dead = true; });
  const answers: unknown[] = [];
  const end = Date.now() + deadlineMs;
  while (!dead) {
    if (Date.now() > end) throw new Error(`the process did not die at its failpoint within ${deadlineMs} ms; its answers: ${JSON.stringify(answers).slice(0, 2000)}`);
    try { answers.push(await send()); } catch { /* the connection died with the process */ }
    // An answer may come just before the failpoint kills the process: wait a little for its exit.
    if (!dead) await Promise.race([c.exited, new Promise((r) => setTimeout(r, 200))]);
  }
  t.pass(answers.length ? `${message} (after ${answers.length} answered tries)` : message);
}

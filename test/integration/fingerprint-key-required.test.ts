// CARD_FINGERPRINT_KEY: the real entry point refuses to start with DATABASE_URL and no key (or the
// development key), exits non-zero and says which variable to set and how to make one; it starts
// with a key, and the demo starts without one.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild, type Child } from '../helpers/child.js';
import { PG_URL, freshDatabase } from '../helpers/env.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-fpkey-'));
const db = PG_URL ? await freshDatabase('fpkey') : null;
t.teardown(async () => { await db?.drop(); rmSync(dataDir, { recursive: true, force: true }); });
const base = { ADMIN_TOKEN: 'adm', DATA_DIR: dataDir, WORKERS: '1', DEMO_MERCHANT: '0' };

/** Waits for a condition on the child's output, up to a deadline. */
async function until(ok: () => boolean, deadlineMs: number): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

async function stop(c: Child): Promise<number | null> {
  c.proc.kill('SIGTERM');
  return c.exited;
}

t.test('refused without the key: exit code and message', async (t) => {
  // The check comes before any connection: this database need not exist.
  const unreachable = 'postgres://postgres@127.0.0.1:1/none';
  for (const key of ['', 'dev-only-fingerprint-key']) {
    const err = await startChild({ ...base, DATABASE_URL: db?.url ?? unreachable, CARD_FINGERPRINT_KEY: key }).then(
      (c) => { c.proc.kill('SIGKILL'); return null; },
      (e: Error) => e.message,
    );
    t.ok(err, `no start with CARD_FINGERPRINT_KEY="${key}"`);
    t.match(err, /server exited with 1 before listening/, 'a non-zero exit');
    t.match(err, /cannot start: CARD_FINGERPRINT_KEY is (not set|the development key)/, 'names the variable');
    t.match(err, /openssl rand -hex 32/, 'says how to make one');
    t.notMatch(err, /"msg":"listening"/, 'never listened');
  }
});

t.test('starts with a key; the demo starts without one', { skip: db ? false : 'needs DATABASE_URL (the embedded default never asks for a key)' }, async (t) => {
  const keyed = await startChild({ ...base, DATABASE_URL: db!.url, CARD_FINGERPRINT_KEY: 'a-real-secret-for-this-test' });
  t.equal((await fetch(`${keyed.url}/v2/health`)).status, 200);
  t.equal(await stop(keyed), 0);
  const demo = await startChild({ ...base, DATABASE_URL: db!.url, CARD_FINGERPRINT_KEY: '', DEMO_MERCHANT: '1' });
  await until(() => /Demo merchant mer_/.test(demo.output()), 15_000);
  t.match(demo.output(), /Demo merchant mer_/, 'the demo merchant was made');
  const code = await stop(demo);
  t.equal(code, 0, code === 0 ? 'the demo stops cleanly on SIGTERM' : `the demo stops cleanly on SIGTERM; its output:\n${demo.output().slice(-4000)}`);
});

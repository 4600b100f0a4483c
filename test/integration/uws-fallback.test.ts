// When uWebSockets.js's native binary cannot load, its package falls back to a slow ws-based
// implementation: the server must say so loudly at start-up, and still answer correctly.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild } from '../helpers/child.js';
import { PG_URL, freshDatabase } from '../helpers/env.js';

t.test('fallback is detected and logged as an error', async (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-fallback-'));
  const db = PG_URL ? await freshDatabase('fallback') : null;
  t.teardown(async () => { await db?.drop(); rmSync(dataDir, { recursive: true, force: true }); });
  const child = await startChild({ UWS_USE_FALLBACK: '1', DATA_DIR: dataDir, DEMO_MERCHANT: '0', WORKERS: '1', ...(db ? { DATABASE_URL: db.url } : {}) });
  t.teardown(() => { child.proc.kill('SIGKILL'); });
  const line = child.output().split('\n').find((l) => l.includes('native binary did not load'));
  t.ok(line, 'an error line names the problem');
  t.equal(JSON.parse(line!).level, 50, 'logged at error level');
  const r = await fetch(`${child.url}/v2/health`);
  t.equal(r.status, 200);
  const nf = await fetch(`${child.url}/api/v2/nothing`);
  t.equal(nf.status, 404);
  child.proc.kill('SIGTERM');
  t.equal(await child.exited, 0);
});

// The embedded default without initdb per test server. startTestServer on the embedded default
// (no DATABASE_URL) used to run initdb for each server it started; now the first one makes a bare
// cluster with the server's own code (startEmbedded, then a clean stop), keeps it in dist/.test-cache
// (gone with the next `npm run build`) for every later test file, and each server's DATA_DIR gets a
// copy: the server starts that cluster as on a restart and applies every migration to it, as on a
// first start. initdb itself still runs for this template and for every test that starts a server
// child on a fresh DATA_DIR.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../src/log.js';
import { startEmbedded } from '../../src/store/embedded.js';
import { placeEmbedded } from '../../src/store/embedded-place.js';

let template: Promise<string | null> | null = null;

const CACHE = fileURLToPath(new URL('../../.test-cache/', import.meta.url)); // dist/.test-cache

/** A bare cluster made by the server's own start and stop, shared across test files (named by the binaries and user). */
function bareCluster(): Promise<string | null> {
  template ??= (async () => {
    const probe = mkdtempSync(path.join(os.tmpdir(), 'pe-cluster-probe-'));
    const place = placeEmbedded(probe);
    rmSync(probe, { recursive: true, force: true });
    const bin = statSync(place.initdb);
    const key = createHash('sha256').update(`${place.initdb}\0${bin.size}\0${bin.mtimeMs}\0${place.runAs?.uid ?? process.getuid?.()}`).digest('hex').slice(0, 16);
    const final = path.join(CACHE, `cluster-${key}`);
    if (existsSync(path.join(final, 'pg', 'PG_VERSION'))) return path.join(final, 'pg');
    mkdirSync(CACHE, { recursive: true });
    const building = mkdtempSync(path.join(CACHE, `cluster-${key}-`));
    const e = await startEmbedded(building, createLogger('silent'));
    await e.stop();
    if (!existsSync(path.join(building, 'pg', 'PG_VERSION'))) { rmSync(building, { recursive: true, force: true }); return null; } // kept elsewhere (root-only temp folder): initdb per server, as before
    try { renameSync(building, final); } catch { rmSync(building, { recursive: true, force: true }); } // another file made it first
    return path.join(final, 'pg');
  })();
  return template;
}

/** Puts a copy of the bare cluster where the embedded Postgres of `dataDir` will look for it. */
export async function seedEmbeddedCluster(dataDir: string): Promise<void> {
  const from = await bareCluster();
  if (!from) return;
  const place = placeEmbedded(dataDir);
  if (existsSync(place.databaseDir) && readdirSync(place.databaseDir).length) return;
  // cp -a keeps the owner (the postgres user when running as root) and the 0700 modes Postgres checks.
  const r = spawnSync('cp', ['-a', `${from}/.`, place.databaseDir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`copying the test cluster failed: ${r.stderr}`);
}

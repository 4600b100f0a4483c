// The embedded default keeps its operator token and demo keys with its data: a second start prints
// the same ones (and they work), a fresh DATA_DIR makes new ones. Real child processes.
import t from 'tap';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild, type Child } from '../helpers/child.js';
import { until } from '../helpers/wait.js';

interface Printed { merchantId: string; token: string; merchantKey: string; secretKey: string; publishableKey: string }

async function start(dataDir: string): Promise<{ child: Child; printed: Printed }> {
  const child = await startChild({ DATABASE_URL: '', REDIS_URL: '', ADMIN_TOKEN: '', DEMO_MERCHANT: '', DATA_DIR: dataDir, WORKERS: '1' });
  await until('the start banner', () => child.output().includes('publishable'));
  const grab = (re: RegExp) => re.exec(child.output())?.[1] ?? '';
  const printed = {
    merchantId: grab(/Demo merchant (mer_\w+)/), token: grab(/Operator token.*?: (adm_\S+)/), merchantKey: grab(/merchant API\s+(\S+)/),
    secretKey: grab(/gateway secret\s+(\S+)/), publishableKey: grab(/publishable\s+(\S+)/),
  };
  return { child, printed };
}

async function stop(child: Child): Promise<void> {
  child.proc.kill('SIGTERM');
  await child.exited;
}

const dirs: string[] = [];
t.teardown(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
// The fresh folder itself is the data folder (in /tmp, so the postgres user of a root run can reach
// it and the cluster stays inside it, removed with it).
const fresh = () => { const d = mkdtempSync(path.join(os.tmpdir(), 'pe-creds-')); dirs.push(d); return d; };

t.test('a second npm start prints the same token and keys; a fresh data folder makes new ones', async (t) => {
  const dataDir = fresh();
  const first = await start(dataDir);
  t.teardown(() => { first.child.proc.kill('SIGKILL'); });
  t.match(first.printed.token, /^adm_/);
  t.match(first.printed.merchantKey, /^svc_test_/);
  await stop(first.child);

  const file = path.join(dataDir, 'credentials.json');
  t.equal(statSync(file).mode & 0o777, 0o600, 'credentials.json readable by its owner only');
  t.equal(statSync(dataDir).mode & 0o077 & ~0o011, 0, 'the data folder is neither readable nor writable by others');

  const second = await start(dataDir);
  t.teardown(() => { second.child.proc.kill('SIGKILL'); });
  t.same(second.printed, first.printed, 'same operator token and demo keys');
  const ping = await fetch(`${second.child.url}/api/v2/ping`, { headers: { authorization: `Bearer ${first.printed.merchantKey}` } });
  t.equal(ping.status, 200, 'the saved merchant key still works');
  const internal = await fetch(`${second.child.url}/internal/merchants/${first.printed.merchantId}`, { headers: { authorization: `Bearer ${first.printed.token}` } });
  t.equal(internal.status, 200, 'the saved operator token still works');
  await stop(second.child);

  const other = await start(fresh());
  t.teardown(() => { other.child.proc.kill('SIGKILL'); });
  t.not(other.printed.token, first.printed.token, 'a fresh data folder: a new operator token');
  t.not(other.printed.merchantKey, first.printed.merchantKey, 'and new keys');
  await stop(other.child);
});

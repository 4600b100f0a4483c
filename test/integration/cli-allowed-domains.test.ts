// `merchants update --allowed-domains`: the CLI sets, and with `none` clears, the framing allowlist
// of the embedded form; a bad origin exits 1 with allowed_domain_invalid on stderr.
import t from 'tap';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ADMIN, startTestServer } from '../helpers/server.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const s = await startTestServer(t);
const env = { PATH: process.env.PATH ?? '', PAYMENTS_URL: s.url, ADMIN_TOKEN: ADMIN };

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

t.test('set, read back, refuse a wildcard, clear', async (t) => {
  const m = await s.merchant();
  const set = await cli(['merchants', 'update', m.id, '--allowed-domains', 'https://shop.example, https://pay.shop.example:8443']);
  t.equal(set.code, 0, set.stderr);
  t.same(JSON.parse(set.stdout).allowed_domains, ['https://shop.example', 'https://pay.shop.example:8443']);
  const page = await fetch(`${s.url}/pay/${(await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100, currency: 'AZN' } })).body.id}`);
  t.match(page.headers.get('content-security-policy'), /frame-ancestors https:\/\/shop\.example https:\/\/pay\.shop\.example:8443$/);

  const bad = await cli(['merchants', 'update', m.id, '--allowed-domains', 'https://*.shop.example']);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /allowed_domain_invalid/);
  t.same((await s.admin('GET', `/internal/merchants/${m.id}`)).body.allowed_domains.length, 2, 'unchanged');

  const cleared = await cli(['merchants', 'update', m.id, '--allowed-domains', 'none']);
  t.equal(cleared.code, 0, cleared.stderr);
  t.same(JSON.parse(cleared.stdout).allowed_domains, []);
});

t.test('add and remove keep the rest of the list and print the resulting list; replacing says what it drops', async (t) => {
  const m = await s.merchant();
  const list = async () => (await s.admin('GET', `/internal/merchants/${m.id}`)).body.allowed_domains as string[];
  const first = await cli(['merchants', 'update', m.id, '--add-allowed-domains', 'https://shop.example']);
  t.equal(first.code, 0, first.stderr);
  t.match(first.stderr, /^allowed_domains \(1\): https:\/\/shop\.example$/m);
  const second = await cli(['merchants', 'update', m.id, '--add-allowed-domains', 'https://pay.shop.example:8443,HTTPS://Shop.Example']);
  t.equal(second.code, 0, second.stderr);
  t.same(await list(), ['https://shop.example', 'https://pay.shop.example:8443'], 'added, the existing entry kept, no duplicate');
  t.match(second.stderr, /note: HTTPS:\/\/Shop\.Example was already on the list/);
  t.match(second.stderr, /allowed_domains \(2\): https:\/\/shop\.example, https:\/\/pay\.shop\.example:8443/);
  t.same(JSON.parse(second.stdout).allowed_domains, await list(), 'stdout is still the merchant as JSON');

  const removed = await cli(['merchants', 'update', m.id, '--remove-allowed-domains', 'https://shop.example:443,https://gone.example', '--add-allowed-domains', 'http://localhost:5173']);
  t.equal(removed.code, 0, removed.stderr);
  t.same(await list(), ['https://pay.shop.example:8443', 'http://localhost:5173'], 'removed by its canonical form, the other kept');
  t.match(removed.stderr, /note: https:\/\/gone\.example was not on the list/);

  const bad = await cli(['merchants', 'update', m.id, '--add-allowed-domains', 'https://*.shop.example']);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /allowed_domain_invalid/);
  t.same(await list(), ['https://pay.shop.example:8443', 'http://localhost:5173'], 'unchanged by a refused addition');

  const replaced = await cli(['merchants', 'update', m.id, '--allowed-domains', 'https://new.example']);
  t.equal(replaced.code, 0, replaced.stderr);
  t.match(replaced.stderr, /note: replaced the whole list; no longer allowed: https:\/\/pay\.shop\.example:8443, http:\/\/localhost:5173/);
  t.match(replaced.stderr, /allowed_domains \(1\): https:\/\/new\.example/);

  const both = await cli(['merchants', 'update', m.id, '--allowed-domains', 'none', '--add-allowed-domains', 'https://x.example']);
  t.equal(both.code, 2, 'replace and add together is a usage error');
  t.same(await list(), ['https://new.example']);
  const cleared = await cli(['merchants', 'update', m.id, '--remove-allowed-domains', 'https://new.example']);
  t.match(cleared.stderr, /allowed_domains \(0\): none/);
});

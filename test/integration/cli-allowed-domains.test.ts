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

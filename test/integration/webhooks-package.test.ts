// The receivers' verify helper installs on its own: packages/webhooks is packed with `npm pack`,
// installed from the tarball into a scratch project outside this repository (offline: it has no
// dependencies), and from there verifies real deliveries of both APIs signed by a running engine,
// and refuses a tampered one. Its types check in that project with the package's own index.d.ts.
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../helpers/server.js';
import { startReceiver, type Received } from '../helpers/receiver.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGE = path.join(ROOT, 'packages', 'webhooks');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'pe-whpkg-'));
t.teardown(() => rmSync(tmp, { recursive: true, force: true }));

function run(cmd: string, args: string[], cwd: string, input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { cwd, timeout: 120_000, env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
    if (input !== undefined) child.stdin!.end(input);
  });
}

const shop = path.join(tmp, 'shop');
let tarball = '';

t.test('npm pack, then npm install of the tarball into a scratch project, offline', async (t) => {
  const packed = await run('npm', ['pack', PACKAGE, '--pack-destination', tmp, '--json'], tmp);
  t.equal(packed.code, 0, packed.stderr);
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  t.same(info.files.map((f) => f.path).sort(), ['README.md', 'index.d.ts', 'index.js', 'package.json'], 'only the helper, its types and its README');
  tarball = path.join(tmp, info.filename);
  mkdirSync(shop);
  writeFileSync(path.join(shop, 'package.json'), JSON.stringify({ name: 'shop', private: true, type: 'module' }));
  const installed = await run('npm', ['install', tarball, '--offline', '--ignore-scripts'], shop);
  t.equal(installed.code, 0, installed.stderr);
  t.same(readdirSync(path.join(shop, 'node_modules')).filter((d) => !d.startsWith('.')), ['payments-engine-webhooks'], 'nothing else installed: no dependencies');
  t.match(JSON.parse(readFileSync(path.join(shop, 'package.json'), 'utf8')).dependencies, { 'payments-engine-webhooks': /\.tgz$/ });
});

t.test('the installed helper verifies deliveries signed by the engine, both APIs', async (t) => {
  t.ok(tarball, 'installed by the test before');
  // The merchant's receiver, as the docs show it, run from the scratch project (its own node_modules only).
  writeFileSync(path.join(shop, 'verify.mjs'), `
import { verifyWebhook, verifyGatewayWebhook, WebhookVerificationError } from 'payments-engine-webhooks';
let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const { api, body, headers, secret } = JSON.parse(input);
  try {
    const event = api === 'merchant'
      ? verifyWebhook(Buffer.from(body, 'utf8'), headers['x-svc-signature'], secret)
      : verifyGatewayWebhook(Buffer.from(body, 'utf8'), headers['x-svc-timestamp'], headers['x-svc-signature'], secret);
    process.stdout.write(JSON.stringify({ ok: true, id: event.id }));
  } catch (err) {
    process.stdout.write(JSON.stringify({ ok: false, reason: err instanceof WebhookVerificationError ? err.reason : String(err) }));
  }
});
`);
  const s = await startTestServer(t, { WEBHOOK_ALLOW_PRIVATE: '1' });
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const m = await s.merchant();
  const verify = async (api: string, r: Received, secret: string) =>
    JSON.parse((await run(process.execPath, ['verify.mjs'], shop, JSON.stringify({ api, body: r.body, headers: r.headers, secret }))).stdout);

  for (const api of ['merchant', 'gateway'] as const) {
    const set = await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api, url: rx.url });
    t.equal(set.status, 201, set.text);
    const ping = await s.admin('POST', `/internal/merchants/${m.id}/webhook-settings/test`, { api });
    t.equal(ping.body.delivery?.status, 'succeeded', ping.text);
    const got = rx.received.find((r) => r.headers['x-svc-event-id'] === ping.body.event_id)!;
    t.ok(got, `${api}: delivered`);
    t.same(await verify(api, got, set.body.secret), { ok: true, id: ping.body.event_id }, `${api}: verified by the installed package`);
    t.same(await verify(api, { ...got, body: got.body.replace('"test.ping"', '"payment.succeeded"') }, set.body.secret),
      { ok: false, reason: 'signature_mismatch' }, `${api}: a changed body is refused`);
    t.same(await verify(api, got, 'whsec_wrong'), { ok: false, reason: 'signature_mismatch' }, `${api}: another secret is refused`);
  }
});

t.test('its types check in the scratch project', async (t) => {
  t.ok(tarball, 'installed by the test before');
  // One compile: the good calls must pass, and the wrong one must fail (an unused @ts-expect-error
  // is itself an error), so untyped `any` exports would not pass either.
  writeFileSync(path.join(shop, 'check.ts'), `
import { verifyWebhook, generateTestHeader, WebhookVerificationError, type VerificationFailure } from 'payments-engine-webhooks';
const body = '{"id":"evt_1"}';
const event: unknown = verifyWebhook(body, generateTestHeader(body, 'whsec_x'), 'whsec_x', { tolerance: 60, now: () => 0 });
const why: VerificationFailure = new WebhookVerificationError('signature_mismatch', 'x').reason;
// @ts-expect-error the secret is a string
verifyWebhook(body, 'h', 42);
export { event, why };
`);
  writeFileSync(path.join(shop, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { noEmit: true, strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: [] }, files: ['check.ts'],
  }));
  const checked = await run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], shop);
  t.equal(checked.code, 0, checked.stdout + checked.stderr);
});

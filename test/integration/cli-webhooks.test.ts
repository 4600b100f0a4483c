// The CLI's webhook and event commands, as a real child process against a real server.
import t from 'tap';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ADMIN, startTestServer } from '../helpers/server.js';
import { signatureValid, startReceiver } from '../helpers/receiver.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const s = await startTestServer(t, { WEBHOOK_ALLOW_PRIVATE: '1' });
const rx = await startReceiver();
t.teardown(() => rx.close());
const m = await s.merchant();

const cli = (...args: string[]) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', PAYMENTS_URL: s.url, ADMIN_TOKEN: ADMIN }, timeout: 30_000 },
    (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
});

t.test('set, test, events, deliveries, resend, rotate', async (t) => {
  const set = await cli('webhooks', 'set', m.id, '--api', 'merchant', '--endpoint', rx.url, '--quiet');
  t.equal(set.code, 0, set.stderr);
  const secret = set.stdout.trim();
  t.match(secret, /^whsec_/);
  const ping = await cli('webhooks', 'test', m.id, '--api', 'merchant');
  t.equal(ping.code, 0, ping.stderr);
  const evt = JSON.parse(ping.stdout).event_id;
  t.ok(signatureValid(rx.received[0], secret));
  const list = JSON.parse((await cli('events', 'list', m.id, '--type', 'test.ping')).stdout);
  t.equal(list.data[0].id, evt);
  const d = JSON.parse((await cli('events', 'deliveries', m.id, evt)).stdout);
  t.equal(d.data[0].status, 'succeeded');
  t.equal((await cli('events', 'resend', m.id, evt)).code, 0);
  await rx.waitFor(2);
  t.equal(rx.received[1].headers['x-svc-event-id'], evt);
  const rot = await cli('webhooks', 'rotate', m.id, '--api', 'merchant', '--grace', '60', '--quiet');
  t.match(rot.stdout.trim(), /^whsec_/);
  t.not(rot.stdout.trim(), secret);
  const listed = JSON.parse((await cli('webhooks', 'list', m.id)).stdout);
  t.equal(listed.data[0].secret, rot.stdout.trim());
  const bad = await cli('webhooks', 'set', m.id, '--api', 'merchant', '--endpoint', 'http://169.254.169.254/x');
  t.equal(bad.code, 1);
  t.match(bad.stderr, /webhook_url_invalid/);
  t.equal((await cli('webhooks', 'set', m.id, '--api', 'partner', '--endpoint', rx.url)).code, 2, 'usage error');
});

t.test('--api defaults to merchant in every webhook command, as in listen; remove deletes the endpoint', async (t) => {
  const n = await s.merchant();
  const set = await cli('webhooks', 'set', n.id, '--endpoint', rx.url);
  t.equal(set.code, 0, set.stderr);
  t.equal(JSON.parse(set.stdout).api, 'merchant');
  const ping = await cli('webhooks', 'test', n.id);
  t.equal(ping.code, 0, ping.stderr);
  t.equal(JSON.parse(ping.stdout).delivery.status, 'succeeded');
  t.equal((await cli('webhooks', 'rotate', n.id, '--grace', '0')).code, 0);
  const gw = await cli('webhooks', 'test', n.id, '--api', 'gateway');
  t.equal(gw.code, 1, 'no gateway endpoint: the gateway is asked only when named');
  t.match(gw.stderr, /webhook_settings_not_found/);
  const removed = await cli('webhooks', 'remove', n.id);
  t.equal(removed.code, 0, removed.stderr);
  t.match(JSON.parse(removed.stdout), { object: 'webhook_settings', deleted: true });
  t.same(JSON.parse((await cli('webhooks', 'list', n.id)).stdout).data, []);
  const again = await cli('webhooks', 'remove', n.id);
  t.equal(again.code, 1);
  t.match(again.stderr, /webhook_settings_not_found: no merchant API endpoint/);
});

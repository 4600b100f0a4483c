// `payments-engine listen --forward-to URL` as a real child process: it points the merchant's
// endpoint at its relay, prints each event, forwards it with the server's signature to URL, and puts
// the previous endpoint back when it stops.
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ADMIN, startTestServer } from '../helpers/server.js';
import { signatureValid, startReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const s = await startTestServer(t, { WEBHOOK_ALLOW_PRIVATE: '1' });
const before = await startReceiver();
const local = await startReceiver();
t.teardown(() => Promise.all([before.close(), local.close()]));
const m = await s.merchant();

t.test('prints and forwards each event, signed, then restores the endpoint', async (t) => {
  t.equal((await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'merchant', url: before.url })).status, 201);
  const proc = spawn(process.execPath, [CLI, 'listen', m.id, '--forward-to', local.url, '--max-events', '1'], {
    env: { PATH: process.env.PATH ?? '', PAYMENTS_URL: s.url, ADMIN_TOKEN: ADMIN }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => { proc.kill('SIGKILL'); });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => { out += d; });
  proc.stderr.on('data', (d: Buffer) => { out += d; });
  const exited = new Promise<number | null>((r) => proc.on('exit', (c) => r(c)));
  await until('the relay ready', () => /Webhook signing secret: (whsec_\w+)/.test(out));
  const secret = /Webhook signing secret: (whsec_\w+)/.exec(out)![1];

  const ping = await s.admin('POST', `/internal/merchants/${m.id}/webhook-settings/test`, { api: 'merchant' });
  t.equal(ping.status, 200, ping.text);
  t.equal(ping.body.delivery.status, 'succeeded', 'the relay answered with the forward target\'s 200');
  t.equal(await exited, 0, out);
  t.equal(local.received.length, 1, 'forwarded once');
  t.ok(signatureValid(local.received[0], secret), 'with the server\'s signature');
  t.equal(local.received[0].headers['x-svc-event-id'], ping.body.event_id);
  t.match(out, new RegExp(`test\\.ping  ${ping.body.event_id}  -> ${local.url} 200`), 'the event printed');
  t.equal(before.received.length, 0, 'nothing went to the previous endpoint meanwhile');
  const after = await s.admin('GET', `/internal/merchants/${m.id}/webhook-settings`);
  t.equal(after.body.data[0].url, before.url, 'the previous endpoint is back');
});

/** `listen` as a child process, stopped by `signal` once its relay is in place. */
async function listenUntil(t: Test, merchantId: string, signal: NodeJS.Signals, extra: string[] = []) {
  const proc = spawn(process.execPath, [CLI, 'listen', merchantId, '--forward-to', local.url, ...extra], {
    env: { PATH: process.env.PATH ?? '', PAYMENTS_URL: s.url, ADMIN_TOKEN: ADMIN }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => { proc.kill('SIGKILL'); });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => { out += d; });
  proc.stderr.on('data', (d: Buffer) => { err += d; });
  const exited = new Promise<number | null>((r) => proc.on('exit', (c) => r(c)));
  await until('the relay ready', () => /Webhook signing secret: whsec_\w+/.test(out));
  const during = (await s.admin('GET', `/internal/merchants/${merchantId}/webhook-settings`)).body.data as { api: string; url: string }[];
  proc.kill(signal);
  const code = await exited;
  return { code, out, err, during };
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  t.test(`${signal}: an endpoint listen created is removed, so no later event goes to the stopped relay`, async (t) => {
    const n = await s.merchant();
    const r = await listenUntil(t, n.id, signal);
    t.equal(r.code, 0, r.out + r.err);
    t.match(r.during, [{ api: 'merchant', url: /^http:\/\/127\.0\.0\.1:\d+\/$/ }], 'the relay was the endpoint while it ran');
    t.match(r.err, /Removed the merchant API endpoint listen created/);
    t.match(JSON.parse(r.out.slice(r.out.indexOf('{'))), { forwarded: 0, endpoint: 'removed', endpoint_restored: null });
    t.same((await s.admin('GET', `/internal/merchants/${n.id}/webhook-settings`)).body.data, [], 'no endpoint left');
    const ping = await s.admin('POST', `/internal/merchants/${n.id}/webhook-settings/test`, { api: 'merchant' });
    t.equal(ping.status, 404, 'nothing to send a new event to');
  });

  t.test(`${signal}: a replaced endpoint is put back`, async (t) => {
    const n = await s.merchant();
    t.equal((await s.admin('PUT', `/internal/merchants/${n.id}/webhook-settings`, { api: 'gateway', url: before.url })).status, 201);
    const r = await listenUntil(t, n.id, signal, ['--api', 'gateway']);
    t.equal(r.code, 0, r.out + r.err);
    t.match(r.err, /Restored the gateway API endpoint/);
    t.match((await s.admin('GET', `/internal/merchants/${n.id}/webhook-settings`)).body.data, [{ api: 'gateway', url: before.url }]);
  });
}

t.test('an endpoint changed by someone else while listening is left alone', async (t) => {
  const n = await s.merchant();
  const proc = spawn(process.execPath, [CLI, 'listen', n.id, '--forward-to', local.url], {
    env: { PATH: process.env.PATH ?? '', PAYMENTS_URL: s.url, ADMIN_TOKEN: ADMIN }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => { proc.kill('SIGKILL'); });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => { out += d; });
  proc.stderr.on('data', (d: Buffer) => { out += d; });
  const exited = new Promise<number | null>((r) => proc.on('exit', (c) => r(c)));
  await until('the relay ready', () => /Webhook signing secret: whsec_\w+/.test(out));
  t.equal((await s.admin('PUT', `/internal/merchants/${n.id}/webhook-settings`, { api: 'merchant', url: before.url })).status, 200);
  proc.kill('SIGINT');
  t.equal(await exited, 0, out);
  t.match(out, /changed while listening \(now http:\/\/127\.0\.0\.1:\d+\S*\): left as it is/);
  t.match((await s.admin('GET', `/internal/merchants/${n.id}/webhook-settings`)).body.data, [{ api: 'merchant', url: before.url }]);
});

t.test('DELETE of a webhook endpoint: 200 once, then 404; another merchant\'s id is 404', async (t) => {
  const n = await s.merchant();
  const o = await s.merchant();
  const w = await s.admin('PUT', `/internal/merchants/${n.id}/webhook-settings`, { api: 'merchant', url: before.url });
  t.equal((await s.admin('DELETE', `/internal/merchants/${o.id}/webhook-settings/${w.body.id}`)).status, 404, 'not through another merchant');
  const del = await s.admin('DELETE', `/internal/merchants/${n.id}/webhook-settings/${w.body.id}`);
  t.match(del, { status: 200, body: { id: w.body.id, deleted: true } });
  const again = await s.admin('DELETE', `/internal/merchants/${n.id}/webhook-settings/${w.body.id}`);
  t.match(again, { status: 404, body: { error: { code: 'webhook_settings_not_found' } } });
});

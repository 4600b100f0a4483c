// `payments-engine listen --forward-to URL` as a real child process: it points the merchant's
// endpoint at its relay, prints each event, forwards it with the server's signature to URL, and puts
// the previous endpoint back when it stops.
import t from 'tap';
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

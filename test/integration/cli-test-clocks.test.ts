// The CLI's test-clock commands, as a real child process against a real server: create a clock,
// a payment on it, advance 31 minutes (--by, --wait) and the payment has expired; list; refusals.
import t from 'tap';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../helpers/server.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const s = await startTestServer(t, { EXPIRY_POLL_MS: '100' });
const m = await s.merchant();
const sk = (await s.key(m.id, 'secret', 'test')).key;

const cli = (...args: string[]) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', PAYMENTS_URL: s.url }, timeout: 60_000 },
    (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
});

t.test('create, advance --by 31m --wait, list', async (t) => {
  const made = await cli('test-clock', 'create', '--key', m.key, '--frozen-time', '2026-01-10T09:00:00Z', '--name', 'cli', '--quiet');
  t.equal(made.code, 0, made.stderr);
  const clock = made.stdout.trim();
  t.match(clock, /^clock_/);
  const p = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 300, test_clock: clock } });
  t.equal(p.status, 201, p.text);
  const adv = await cli('test-clock', 'advance', clock, '--key', m.key, '--by', '31m', '--wait');
  t.equal(adv.code, 0, adv.stderr);
  t.match(JSON.parse(adv.stdout), { id: clock, frozen_time: '2026-01-10T09:31:00.000Z', status: 'ready' });
  t.equal((await s.request('GET', `/api/v2/payments/${p.body.id}`, { key: m.key })).body.status, 'expired');
  const list = await cli('test-clock', 'list', '--key', m.key);
  t.equal(list.code, 0, list.stderr);
  t.same(JSON.parse(list.stdout).data.map((c: { id: string }) => c.id), [clock]);
  // The gateway API's clocks with an sk_test_ key: the same merchant's clocks.
  const g = await cli('test-clock', 'list', '--key', sk);
  t.equal(g.code, 0, g.stderr);
  t.same(JSON.parse(g.stdout).data.map((c: { id: string }) => c.id), [clock]);
});

t.test('refusals: usage errors exit 2, API errors exit 1 with the code', async (t) => {
  const both = await cli('test-clock', 'advance', 'clock_00000000000000000000', '--key', m.key);
  t.equal(both.code, 2);
  t.match(both.stderr, /exactly one of --to and --by/);
  const badBy = await cli('test-clock', 'advance', 'clock_00000000000000000000', '--key', m.key, '--by', 'soon');
  t.equal(badBy.code, 2);
  const missing = await cli('test-clock', 'advance', 'clock_00000000000000000000', '--key', m.key, '--to', '2030-01-01T00:00:00Z');
  t.equal(missing.code, 1);
  t.match(missing.stderr, /test_clock_not_found/);
  const live = await cli('test-clock', 'create', '--key', m.liveKey);
  t.equal(live.code, 1);
  t.match(live.stderr, /test_clock_live_mode/);
});

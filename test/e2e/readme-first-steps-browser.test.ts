// The README's quick start, walked as written: its commands are read from README.md and run in a
// shell with the values the server printed (the operator token, the demo merchant, its key, the
// signing secret) in place of their `…` placeholders. `npm start` on the embedded default (the
// server entry it runs, on a fresh data folder), `listen --forward-to` the example receiver, a
// payment created with the README's curl, paid in Chromium with the README's test card, and the
// receiver printing the verified payment.succeeded the README promises; a forged delivery refused.
import t from 'tap';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateTestHeader } from 'payments-engine/webhooks';
import { freePort } from '../../src/store/embedded.js';
import { CHROMIUM, CHROMIUM_ARGS, artifact, noBrowser } from '../helpers/browser.js';
import { CARDS, CVC } from '../helpers/checkout.js';
import { startChild } from '../helpers/child.js';
import { until } from '../helpers/wait.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

/** The quick start section and its shell blocks (list items indent them; the indent is removed). */
const start = readme.indexOf('\n## Quick start');
const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
const blocks = [...section.matchAll(/^( *)```sh\n([\s\S]*?)^ *```/gm)].map(([, indent, body]) => body.replace(new RegExp(`^${indent}`, 'gm'), '').trim());
const block = (has: string): string => {
  const found = blocks.find((b) => b.includes(has));
  if (!found) throw new Error(`the README's quick start has no shell block with "${has}"`);
  return found;
};

interface Shell { proc: ChildProcess; out: () => string; exited: Promise<number | null> }
/** A README block in its own shell and process group (so that Ctrl-C reaches the command, as in a terminal). */
function shell(script: string, env: Record<string, string> = {}): Shell {
  const proc = spawn('sh', ['-c', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => { out += d; });
  proc.stderr!.on('data', (d: Buffer) => { out += d; });
  return { proc, out: () => out, exited: new Promise((r) => proc.on('exit', (c) => r(c))) };
}
const signal = (s: Shell, sig: NodeJS.Signals) => { try { process.kill(-s.proc.pid!, sig); } catch { /* gone */ } };

const noCurl = spawnSync('curl', ['--version']).error ? 'no curl on this machine: the README\'s step 4 is a curl command (apt-get install -y curl)' : false;
if (noBrowser || noCurl) {
  t.plan(0, (noBrowser || noCurl) as string);
} else {
  await run();
}

async function run() {
  // Subtests are added only once the server runs: tap ends a file whose queue empties meanwhile.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-readme-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  // `npm start` on a machine with nothing else: the embedded default, no token or URL configured.
  const server = await startChild({ DATABASE_URL: '', REDIS_URL: '', ADMIN_TOKEN: '', DEMO_MERCHANT: '', WEBHOOK_ALLOW_PRIVATE: '', PUBLIC_BASE_URL: '', DATA_DIR: dataDir, WORKERS: '1' }, 120_000);
  t.teardown(() => { server.proc.kill('SIGKILL'); });
  await until('the start banner', () => server.output().includes('publishable'));
  const grab = (re: RegExp) => {
    const v = re.exec(server.output())?.[1];
    if (!v) throw new Error(`the banner lacks ${re}:\n${server.output()}`);
    return v;
  };
  const printed = { token: grab(/Operator token.*?: (adm_\S+)/), merchant: grab(/Demo merchant (mer_\w+)/), key: grab(/merchant API\s+(svc_test_\S+)/) };
  const receiverPort = await freePort();
  const values: Record<string, string> = { 'adm_…': printed.token, 'mer_…': printed.merchant, 'svc_test_…': printed.key, 'localhost:3000': new URL(server.url).host, 'localhost:8080': `127.0.0.1:${receiverPort}` };
  /** The README's command with the printed values in place of its placeholders; `npm run cli --` is its script. */
  const fill = (cmd: string): string => {
    let s = cmd.replaceAll('npm run cli --', pkg.scripts.cli);
    for (const [k, v] of Object.entries(values)) s = s.replaceAll(k, v);
    if (s.includes('…')) throw new Error(`a placeholder this walk does not know is left in:\n${s}`);
    return s;
  };

  t.test('the quick start\'s commands are the ones this test runs', async (t) => {
    t.match(block('npm start'), /^npm ci\nnpm start\b/m, 'step 1: npm ci, npm start');
    // Its NODE_OPTIONS (the main thread's heap limit) are start-banner-cli's to check.
    t.match(pkg.scripts.start, /^npm run build --silent && NODE_OPTIONS="[^"]*" node dist\/src\/main\.js$/, 'npm start builds, then runs the entry this test starts');
    t.equal(pkg.scripts.cli, 'node dist/src/cli/main.js', 'npm run cli is the CLI entry');
  });

  t.test('listen, the receiver, a payment, paid in the browser: the receiver prints the verified event', async (t) => {
    // Step 2: the relay; PAYMENTS_URL because this server is not on :3000.
    const listen = shell(fill(block('listen mer_')), { PAYMENTS_URL: server.url });
    t.teardown(() => signal(listen, 'SIGKILL'));
    await until('the signing secret printed', () => /whsec_\w+/.test(listen.out()) || listen.proc.exitCode !== null, 30_000);
    const secret = /whsec_\w+/.exec(listen.out())?.[0];
    if (!secret) throw new Error(`listen printed no secret:\n${listen.out()}`);
    values['whsec_…'] = secret;

    // Step 3: the example receiver.
    const receiver = shell(fill(block('webhook-receiver.mjs')), { RECEIVER_PORT: String(receiverPort) });
    t.teardown(() => signal(receiver, 'SIGKILL'));
    await until('the receiver listening', () => receiver.out().includes(`localhost:${receiverPort}/hooks`) || receiver.proc.exitCode !== null, 30_000);
    t.match(receiver.out(), `receiving on http://localhost:${receiverPort}/hooks`);

    // Step 4: the README's curl.
    const created = await new Promise<string>((resolve, reject) => {
      execFile('sh', ['-c', fill(block('curl '))], { cwd: ROOT, timeout: 30_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    });
    const payment = JSON.parse(created) as { id: string; status: string; checkout_url: string; amount: number };
    t.equal(payment.status, 'pending', created);
    t.equal(payment.amount, 4900);

    // Step 5: pay on checkout_url with the card the README points to: the first row of the sandbox's
    // Test cards (the README itself writes no card number out).
    t.match(section, '](docs/sandbox.md#test-cards)', 'the README links the test cards');
    const sandbox = readFileSync(path.join(ROOT, 'docs', 'sandbox.md'), 'utf8');
    const cards = sandbox.slice(sandbox.indexOf('## Test cards'));
    const cardNumber = /^\| ([\d ]+) \|/m.exec(cards)?.[1];
    t.equal(cardNumber?.replaceAll(' ', ''), CARDS.success, 'its first row is the sandbox success card');
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    t.teardown(() => browser.close());
    const page = await browser.newPage();
    await page.goto(payment.checkout_url);
    await page.fill('#cc-number', cardNumber!);
    await page.fill('#cc-exp', '12/34');
    await page.fill('#cc-cvc', CVC);
    await page.click('#pay-card');
    await page.waitForSelector('#outcome[data-status="succeeded"]', { timeout: 30_000 });
    await page.screenshot({ path: artifact('readme-first-payment'), fullPage: true });

    const promised = /The receiver prints `([^`]+)`/.exec(section)?.[1];
    t.ok(promised, 'the README says what the receiver prints');
    const expected = new RegExp(promised!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('evt_…', 'evt_\\w+').replace('<payment id>', payment.id));
    await until('the receiver printing the verified event', () => expected.test(receiver.out()), 60_000);
    t.match(listen.out(), new RegExp(`payment\\.succeeded\\s+evt_\\w+\\s+-> http://127\\.0\\.0\\.1:${receiverPort}/hooks 200`), 'listen printed the event, forwarded with 200');

    // A delivery signed with another secret is refused with the reason.
    const body = JSON.stringify({ id: 'evt_forged', type: 'payment.succeeded', data: { object: {} } });
    const forged = await fetch(`http://127.0.0.1:${receiverPort}/hooks`, { method: 'POST', body, headers: { 'x-svc-signature': generateTestHeader(body, 'whsec_not_the_secret') } });
    t.equal(forged.status, 400, 'a forged delivery gets 400');
    await until('the refusal printed', () => receiver.out().includes('refused: signature_mismatch'));
    t.notMatch(receiver.out(), /verified payment\.succeeded evt_forged/);

    // Ctrl-C (to the group, as a terminal sends it; the shell itself dies of it): listen stops and says what it forwarded.
    signal(listen, 'SIGINT');
    await until('listen stopped with its summary', () => /"forwarded": [1-9]/.test(listen.out()), 30_000);
    await listen.exited;
    signal(receiver, 'SIGTERM');
    await receiver.exited;
    server.proc.kill('SIGTERM');
    await server.exited;
  });
}

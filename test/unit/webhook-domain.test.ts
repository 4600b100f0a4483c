// Webhook signing and verification, the retry schedules, Retry-After, status classification and
// gateway target resolution. Signatures are checked against an HMAC computed here independently.
import t from 'tap';
import crypto from 'node:crypto';
import { gatewaySignatureHeader, merchantSignatureHeader } from '../../src/domain/webhook-signature.js';
import { generateTestHeader, verifyGatewayWebhook, verifyWebhook, WebhookVerificationError } from 'payments-engine/webhooks';
import { afterAttempt, classifyStatus, parseRetryAfter, MERCHANT_RETRY_DELAYS_MS, GATEWAY_RETRY_DELAYS_MS } from '../../src/domain/webhook-schedule.js';
import { resolveGatewayTarget } from '../../src/domain/webhook-target.js';

const independent = (secret: string, payload: string) => crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(payload, 'utf8')).digest('hex');
const body = '{"id":"evt_1","type":"payment.succeeded","data":{"object":{"amount":4900,"description":"Чай ☕"}}}';

t.test('merchant header: t and one v1 per secret over "<t>.<body>"', async (t) => {
  const h = merchantSignatureHeader(['whsec_a', 'whsec_b'], 1_800_000_000, body);
  t.equal(h, `t=1800000000,v1=${independent('whsec_a', `1800000000.${body}`)},v1=${independent('whsec_b', `1800000000.${body}`)}`);
  t.match(h, /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
});

t.test('gateway header: sha256 over "<timestamp>.<body>"', async (t) => {
  t.equal(gatewaySignatureHeader(['s1'], 42, body), `sha256=${independent('s1', `42.${body}`)}`);
});

t.test('verifyWebhook accepts a valid header, raw bytes and rotation', async (t) => {
  const now = () => 1_800_000_100_000;
  const h = merchantSignatureHeader(['new', 'old'], 1_800_000_000, body);
  t.same(verifyWebhook(body, h, 'new', { now }), JSON.parse(body));
  t.same(verifyWebhook(Buffer.from(body), h, 'old', { now }), JSON.parse(body), 'the old secret still verifies during rotation');
  t.ok(verifyWebhook(body, generateTestHeader(body, 'x'), 'x'));
});

t.test('verifyWebhook refuses with a typed reason', async (t) => {
  const now = () => 1_800_000_000_000;
  const h = merchantSignatureHeader(['sec'], 1_800_000_000, body);
  const reason = (fn: () => unknown) => { try { fn(); return 'passed'; } catch (e) { return e instanceof WebhookVerificationError ? e.reason : 'other'; } };
  t.equal(reason(() => verifyWebhook(body, undefined, 'sec', { now })), 'header_missing');
  t.equal(reason(() => verifyWebhook(body, 'v1=abc', 'sec', { now })), 'header_malformed');
  t.equal(reason(() => verifyWebhook(body, h, 'wrong', { now })), 'signature_mismatch');
  t.equal(reason(() => verifyWebhook(body + ' ', h, 'sec', { now })), 'signature_mismatch', 'one byte more');
  t.equal(reason(() => verifyWebhook(body, h, 'sec', { now: () => 1_800_000_301_000 })), 'timestamp_out_of_tolerance', '301 s later');
  t.equal(reason(() => verifyWebhook(body, h, 'sec', { now: () => 1_799_999_699_000 })), 'timestamp_out_of_tolerance', '301 s earlier');
  t.equal(reason(() => verifyWebhook(body, h, 'sec', { now: () => 1_800_000_300_000 })), 'passed', 'exactly 300 s');
  t.equal(reason(() => verifyWebhook(body, h, 'sec', { now: () => 1_800_001_000_000, tolerance: 1000 })), 'passed', 'tolerance is settable');
});

t.test('verifyGatewayWebhook: the engine\'s gateway header, rotation, and typed refusals', async (t) => {
  const now = () => 1_800_000_000_000;
  const h = gatewaySignatureHeader(['new', 'old'], 1_800_000_000, body);
  const reason = (fn: () => unknown) => { try { fn(); return 'passed'; } catch (e) { return e instanceof WebhookVerificationError ? e.reason : 'other'; } };
  t.same(verifyGatewayWebhook(body, '1800000000', h, 'old', { now }), JSON.parse(body));
  t.equal(reason(() => verifyGatewayWebhook(body, undefined, h, 'new', { now })), 'header_missing');
  t.equal(reason(() => verifyGatewayWebhook(body, 'soon', h, 'new', { now })), 'header_malformed');
  t.equal(reason(() => verifyGatewayWebhook(body, '1800000001', h, 'new', { now })), 'signature_mismatch', 'the timestamp is signed');
  t.equal(reason(() => verifyGatewayWebhook(body, '1800000000', h, 'new', { now: () => 1_800_000_301_000 })), 'timestamp_out_of_tolerance');
});

t.test('merchant schedule: 1m 5m 30m 2h 6h 12h 24h, then undelivered', async (t) => {
  const mid = () => 0.5; // no jitter
  let now = 0;
  const seen: number[] = [];
  for (let attempt = 1; attempt <= 8; attempt++) {
    const n = afterAttempt('merchant', attempt, { kind: 'failure' }, now, mid);
    if (attempt === 8) { t.same(n, { status: 'undelivered' }); break; }
    if (n.status !== 'pending') throw new Error('expected pending');
    seen.push(n.nextAttemptAt - now);
    now = n.nextAttemptAt;
  }
  t.same(seen, [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000]);
  t.same(seen, MERCHANT_RETRY_DELAYS_MS);
});

t.test('gateway schedule: 8 attempts within 24 h, exponential from 30 s', async (t) => {
  t.equal(GATEWAY_RETRY_DELAYS_MS[0], 30_000);
  t.ok(GATEWAY_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0) <= 86_400_000);
  for (let i = 1; i < GATEWAY_RETRY_DELAYS_MS.length; i++) t.ok(GATEWAY_RETRY_DELAYS_MS[i] > GATEWAY_RETRY_DELAYS_MS[i - 1]);
  t.same(afterAttempt('gateway', 8, { kind: 'failure' }, 0), { status: 'undelivered' });
});

t.test('jitter stays within a few percent', async (t) => {
  for (const r of [0, 0.25, 0.999]) {
    const n = afterAttempt('merchant', 1, { kind: 'failure' }, 0, () => r);
    if (n.status !== 'pending') throw new Error();
    t.ok(n.nextAttemptAt >= 57_000 && n.nextAttemptAt <= 63_000, String(n.nextAttemptAt));
  }
});

t.test('Retry-After is honoured only when later than the schedule', async (t) => {
  const later = afterAttempt('merchant', 1, { kind: 'failure', retryAfterMs: 600_000 }, 0, () => 0.5);
  t.same(later, { status: 'pending', nextAttemptAt: 600_000 });
  const sooner = afterAttempt('merchant', 1, { kind: 'failure', retryAfterMs: 1_000 }, 0, () => 0.5);
  t.same(sooner, { status: 'pending', nextAttemptAt: 60_000 });
  t.equal(parseRetryAfter('120', 0), 120_000);
  t.equal(parseRetryAfter(new Date(10_000).toUTCString(), 0), 10_000);
  t.equal(parseRetryAfter('soon', 0), null);
  t.equal(parseRetryAfter(null, 0), null);
});

t.test('status classification', async (t) => {
  t.same(classifyStatus(200, null, 0), { kind: 'success' });
  t.same(classifyStatus(204, null, 0), { kind: 'success' });
  t.same(classifyStatus(302, null, 0), { kind: 'failure' });
  t.same(classifyStatus(410, null, 0), { kind: 'gone' });
  t.same(classifyStatus(500, '5', 0), { kind: 'failure' }, 'Retry-After only with 429 and 503');
  t.same(classifyStatus(429, '5', 0), { kind: 'failure', retryAfterMs: 5000 });
  t.same(classifyStatus(503, null, 0), { kind: 'failure', retryAfterMs: undefined });
  t.same(afterAttempt('merchant', 3, { kind: 'gone' }, 0), { status: 'gone' });
  t.same(afterAttempt('merchant', 3, { kind: 'success' }, 0), { status: 'succeeded' });
});

t.test('gateway target order: session URL, channel webhook, channel row, merchant row', async (t) => {
  const wide = { id: 'w', channelId: null, url: 'https://wide.example/h', secrets: ['sw'], events: null };
  const chan = { id: 'c', channelId: 'ch_1', url: 'https://chan.example/h', secrets: ['sc'], events: ['payment.succeeded'] };
  const base = { sessionWebhookUrl: null, channelId: 'ch_1', channelHook: null, rows: [wide, chan], eventType: 'payment.succeeded' };
  t.same(resolveGatewayTarget({ ...base, sessionWebhookUrl: 'https://session.example/h' }), { url: 'https://session.example/h', secrets: ['sc'], settingsId: 'c' });
  t.same(resolveGatewayTarget({ ...base, channelHook: { url: 'https://hook.example/h', secrets: ['sh'] } }), { url: 'https://hook.example/h', secrets: ['sh'], settingsId: null });
  t.same(resolveGatewayTarget(base), { url: chan.url, secrets: ['sc'], settingsId: 'c' });
  t.equal(resolveGatewayTarget({ ...base, eventType: 'payment.refunded' }), null, 'the channel row does not want it');
  t.same(resolveGatewayTarget({ ...base, channelId: null }), { url: wide.url, secrets: ['sw'], settingsId: 'w' });
  t.equal(resolveGatewayTarget({ ...base, rows: [], sessionWebhookUrl: 'https://s.example' }), null, 'nothing to sign with');
  t.same(resolveGatewayTarget({ ...base, rows: [], channelSecrets: ['own'], sessionWebhookUrl: 'https://s.example' }), { url: 'https://s.example', secrets: ['own'], settingsId: null },
    'a session URL signs with its channel\'s own secret even when the channel has no URL');
  t.same(resolveGatewayTarget({ ...base, channelSecrets: ['own'], sessionWebhookUrl: 'https://s.example' })?.secrets, ['own'], 'the channel\'s secret before a settings row\'s');
});

// The payment link domain: the rules of a create request, and every move of a link (reserve,
// release, deactivate) in every state, with a fixed clock.
import t from 'tap';
import { applyLinkRules, createLink, deactivate, isOpen, refusalOf, release, reserve, showsQrCode, staleHolds, STALE_HOLD_MS, type Link } from '../../src/domain/link.js';
import { parseMajorAmount } from '../../src/domain/money.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const M = { defaultCurrency: 'AZN', currencies: ['AZN', 'RUB', 'JPY', 'KWD'] };
const ctx = { id: 'lnk_aaaaaaaaaaaaaaaaaaaa', merchantId: 'mer_1', livemode: false, requestId: 'req_1', idempotencyKey: null, requestHash: null };

function link(input: Parameters<typeof applyLinkRules>[0], patch: Partial<Link> = {}): Link {
  const r = applyLinkRules(input, M, NOW);
  if (!r.ok) throw new Error(r.code);
  return { ...createLink(r.value, ctx, NOW), ...patch };
}

t.test('create rules', async (t) => {
  // Spec: max_uses "(null for no limit)", "(optional)"; type "(dynamic default, or static)"; amount "(integer or null when the payer enters the sum)".
  t.match(applyLinkRules({}, M, NOW), { ok: true, value: { type: 'dynamic', amount: null, currency: 'AZN', maxUses: null, expiresAt: null } });
  t.match(applyLinkRules({ max_uses: 1 }, M, NOW), { ok: true, value: { maxUses: 1 } });
  t.match(applyLinkRules({ amount: 2500, max_uses: 2 }, M, NOW), { ok: true, value: { type: 'dynamic', amount: 2500, maxUses: 2 } });
  t.match(applyLinkRules({ type: 'static' }, M, NOW), { ok: true, value: { type: 'static', amount: null, maxUses: null } });
  t.match(applyLinkRules({ type: 'static', max_uses: 3 }, M, NOW), { ok: true, value: { type: 'static', amount: null, maxUses: 3 } });
  t.match(applyLinkRules({ type: 'static', amount: 5 }, M, NOW), { ok: true, value: { maxUses: null, amount: 5 } });
  t.match(applyLinkRules({ type: 'static', amount: 5, max_uses: 7 }, M, NOW), { ok: true, value: { maxUses: 7 } });
  t.match(applyLinkRules({ currency: 'usd' }, M, NOW), { ok: false, code: 'currency_not_enabled' });
  t.match(applyLinkRules({ currency: 'rub' }, M, NOW), { ok: true, value: { currency: 'RUB' } });
  for (const bad of ['2026-11-23T12:00:00Z', '2026-11-23T11:59:59Z', '2027-02-30T00:00:00Z', '2027-11-25T00:00:00Z', 'soon']) {
    t.match(applyLinkRules({ expires_at: bad }, M, NOW), { ok: false, code: 'expires_at_invalid' }, bad);
  }
  t.match(applyLinkRules({ expires_at: '2026-11-23T13:00:00+01:00' }, M, NOW), { ok: false, code: 'expires_at_invalid' }, 'an offset counts');
  t.match(applyLinkRules({ expires_at: '2026-11-23T15:00:01+03:00' }, M, NOW), { ok: true, value: { expiresAt: NOW + 1000 } });
  t.match(applyLinkRules({ expires_at: '2027-02-28T00:00:00Z' }, M, NOW), { ok: true, value: { expiresAt: Date.parse('2027-02-28T00:00:00Z') } });
});

t.test('reserve: each refusal, in order; the payer\'s amount only when the link has none', async (t) => {
  const open = link({});
  t.match(reserve(open, 'p1', null, NOW), { ok: false, code: 'amount_invalid' });
  t.match(reserve(open, 'p1', 0, NOW), { ok: false, code: 'amount_invalid' });
  t.match(reserve(open, 'p1', 1.5, NOW), { ok: false, code: 'amount_invalid' });
  const r = reserve(open, 'p1', 250, NOW);
  t.match(r, { ok: true, amount: 250, state: { holds: { p1: NOW }, version: 2, uses: 0 } });
  t.match(reserve(link({ type: 'static', amount: 900 }), 'p1', 5, NOW), { ok: true, amount: 900 });
  t.match(reserve(link({ type: 'static' }), 'p1', 5, NOW), { ok: true, amount: 5 }, 'a static link may leave the sum to the payer');
  t.match(reserve(link({ type: 'static' }), 'p1', null, NOW), { ok: false, code: 'amount_invalid' });
  t.ok(showsQrCode(link({ type: 'static' })) && !showsQrCode(link({})), 'the type changes the QR code the page shows');
  const once = link({ max_uses: 1 });
  const r1 = reserve(once, 'p1', 250, NOW);
  t.ok(r1.ok);
  const held = r1.ok ? r1.state : open;
  t.equal(refusalOf(held, NOW), 'link_busy');
  t.ok(isOpen(held, NOW), 'held only: still open');
  t.match(reserve(held, 'p2', 250, NOW), { ok: false, code: 'link_busy' });
  t.match(reserve({ ...held, holds: {}, uses: 1 }, 'p2', 250, NOW), { ok: false, code: 'link_exhausted' });
  t.notOk(isOpen({ ...held, holds: {}, uses: 1 }, NOW));
  t.match(reserve({ ...open, expiresAt: NOW }, 'p2', 250, NOW), { ok: false, code: 'link_expired' });
  t.match(reserve({ ...open, expiresAt: NOW + 1 }, 'p2', 250, NOW), { ok: true });
  t.match(reserve({ ...open, active: false, expiresAt: NOW }, 'p2', 250, NOW), { ok: false, code: 'link_inactive' }, 'inactive first');
  const unlimited = link({ type: 'static', amount: 1 }, { uses: 1_000_000, holds: { a: NOW, b: NOW } });
  t.match(reserve(unlimited, 'p3', null, NOW), { ok: true }, 'no limit');
});

t.test('release, deactivate, stale holds', async (t) => {
  const l = link({ type: 'static', amount: 1, max_uses: 3 }, { holds: { a: NOW - STALE_HOLD_MS, b: NOW - STALE_HOLD_MS + 1, c: NOW } });
  t.same(staleHolds(l, NOW), ['a']);
  t.same(release(l, ['a', 'zz'], NOW)?.holds, { b: NOW - STALE_HOLD_MS + 1, c: NOW });
  t.equal(release(l, ['zz'], NOW), null, 'nothing to return: nothing to write');
  const d = deactivate(l, NOW);
  t.match(d, { active: false, version: l.version + 1 });
  t.equal(deactivate(d!, NOW), null, 'deactivating twice writes nothing');
  t.equal(refusalOf(d!, NOW), 'link_inactive');
});

t.test('a payer\'s typed amount in minor units per currency', async (t) => {
  const cases: [string, string, number | null][] = [
    ['12.34', 'AZN', 1234], ['12,5', 'AZN', 1250], ['12', 'AZN', 1200], [' 1 000.00 ', 'AZN', 100000], ['0.01', 'AZN', 1],
    ['0', 'AZN', null], ['0.00', 'AZN', null], ['1.234', 'AZN', null], ['-1', 'AZN', null], ['1e3', 'AZN', null], ['', 'AZN', null],
    ['12.', 'AZN', null], ['.5', 'AZN', null], ['99999999.99', 'AZN', 9999999999], ['100000000.00', 'AZN', null],
    ['100', 'JPY', 100], ['100.0', 'JPY', null], ['1.234', 'KWD', 1234], ['1.2345', 'KWD', null],
  ];
  for (const [text, cur, want] of cases) t.equal(parseMajorAmount(text, cur), want, `${text} ${cur}`);
});

// The sandbox bank's pages over HTTP: the ACS takes the EMV 3-D Secure browser flow (a form POST of
// creq shows the challenge), and a page or an answer that cannot go on (no creq, no or a bad
// reference, a stale attempt, a closed payment) gets a localised error page, never a silent
// redirect that loses the customer's answer. The same for the SBP bank and wallet pages.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { card, CARDS, newPayment } from '../helpers/checkout.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'RUB'] });

interface Page { status: number; location: string | null; html: string; csp: string | null }

async function call(method: 'GET' | 'POST', path: string, form?: Record<string, string>): Promise<Page> {
  const r = await fetch(s.url + path, {
    method, redirect: 'manual',
    ...(form ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() } : {}),
  });
  return { status: r.status, location: r.headers.get('location'), html: await r.text(), csp: r.headers.get('content-security-policy') };
}

const refOfCreq = (creq: string) => JSON.parse(Buffer.from(creq, 'base64url').toString()).acsTransID as string;
const hiddenRef = (html: string) => /name="ref" value="([^"]*)"/.exec(html)?.[1];
const codeOf = (html: string) => /id="sandbox-error"[^>]*data-code="([^"]+)"/.exec(html)?.[1];
const statusOf = async (id: string) => (await s.request('GET', `/checkout/${id}/status`)).body.status as string;

async function challenge(body: Record<string, unknown> = {}): Promise<{ id: string; acs: string; creq: string }> {
  const id = await newPayment(s, m.key, body);
  const r = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.challenge) });
  if (r.body.next_action?.type !== 'three_ds_challenge') throw new Error(`no challenge: ${r.text}`);
  return { id, acs: new URL(r.body.next_action.acs_url).pathname, creq: r.body.next_action.creq };
}

t.test('a form POST of creq (EMV browser flow) shows the challenge, and its answer settles the payment', async (t) => {
  const { id, acs, creq } = await challenge();
  const page = await call('POST', acs, { creq, threeDSSessionData: 'merchant-session-1' });
  t.equal(page.status, 200, 'the challenge, not a redirect');
  t.equal(page.location, null);
  t.equal(hiddenRef(page.html), refOfCreq(creq), 'the form carries the attempt reference');
  t.match(page.html, /name="answer" value="Y"/);
  t.match(page.csp ?? '', /default-src 'none'/);
  t.equal(await statusOf(id), 'requires_action', 'showing the challenge answers nothing');
  const done = await call('POST', acs, { ref: hiddenRef(page.html)!, answer: 'Y' });
  t.equal(done.status, 302);
  t.equal(done.location, `/pay/${id}?lang=en`, 'back to the hosted page, in the language of the page');
  t.equal(await statusOf(id), 'succeeded');
});

t.test('the ACS without a valid creq shows an error page, not a form with an empty reference', async (t) => {
  const { id, acs } = await challenge();
  const junk = Buffer.from(JSON.stringify({ acsTransID: 'not-ours' })).toString('base64url');
  for (const [method, path, form] of [
    ['GET', acs, undefined], ['GET', `${acs}?creq=`, undefined], ['GET', `${acs}?creq=%%%`, undefined], ['GET', `${acs}?creq=${junk}`, undefined],
    ['POST', acs, {}], ['POST', acs, { creq: 'bm90IGpzb24' }], ['POST', acs, { threeDSSessionData: 'x' }],
  ] as const) {
    const p = await call(method, path, form);
    t.equal(p.status, 400, `${method} ${path} ${JSON.stringify(form)}`);
    t.equal(codeOf(p.html), 'creq_invalid');
    t.notMatch(p.html, /<form/, 'no form to answer');
    t.match(p.html, new RegExp(`href="/pay/${id}\\?lang=en"`), 'a way back to the payment page, in its language');
  }
  t.equal(await statusOf(id), 'requires_action');
});

t.test('an answer without a valid reference or answer is refused on an error page and changes nothing', async (t) => {
  const { id, acs, creq } = await challenge();
  for (const form of [{ answer: 'Y' }, { ref: '', answer: 'Y' }, { ref: 'bogus', answer: 'Y' }, { ref: '<script>', answer: 'N' }] as Record<string, string>[]) {
    const p = await call('POST', acs, form);
    t.equal(p.status, 400, JSON.stringify(form));
    t.equal(p.location, null, 'no redirect');
    t.equal(codeOf(p.html), 'reference_invalid');
  }
  const bad = await call('POST', acs, { ref: refOfCreq(creq), answer: 'maybe' });
  t.same([bad.status, codeOf(bad.html)], [400, 'answer_invalid']);
  t.equal(await statusOf(id), 'requires_action', 'no answer was taken');
  t.equal((await call('POST', acs, { ref: refOfCreq(creq), answer: 'N' })).status, 302, 'the real answer still works');
  t.equal(await statusOf(id), 'failed');
});

t.test('a stale attempt and a closed payment get a 409 error page, localised', async (t) => {
  const { id, acs, creq: first } = await challenge({ locale: 'ru' });
  const second = (await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.challenge) })).body.next_action.creq as string;
  const shown = await call('GET', `${acs}?creq=${first}`);
  t.same([shown.status, codeOf(shown.html)], [409, 'checkout_action_stale'], 'the page of an old attempt says it is stale');
  t.match(shown.html, /уже не актуальна/, 'in the payment\'s language');
  const stale = await call('POST', acs, { ref: refOfCreq(first), answer: 'Y' });
  t.same([stale.status, stale.location, codeOf(stale.html)], [409, null, 'checkout_action_stale']);
  t.equal(await statusOf(id), 'requires_action');
  t.equal((await call('POST', acs, { ref: refOfCreq(second), answer: 'Y' })).status, 302);
  t.equal(await statusOf(id), 'succeeded');
  const again = await call('POST', `${acs}?lang=az`, { ref: refOfCreq(second), answer: 'Y' });
  t.same([again.status, codeOf(again.html)], [409, 'checkout_closed']);
  t.match(again.html, /artıq başa çatıb/, '?lang= chooses the language');
  t.match(again.html, /lang="az"/);
  const closedPage = await call('GET', `${acs}?creq=${second}&lang=en`);
  t.same([closedPage.status, codeOf(closedPage.html)], [409, 'checkout_closed']);
  t.match(closedPage.html, /already finished/);
});

t.test('error texts exist in en, ru and az', async (t) => {
  const { acs } = await challenge();
  const seen = new Set<string>();
  for (const lang of ['en', 'ru', 'az']) {
    const p = await call('GET', `${acs}?lang=${lang}`);
    t.equal(p.status, 400);
    t.match(p.html, new RegExp(`<html lang="${lang}"`));
    seen.add(/id="sandbox-error"[^>]*>([^<]+)</.exec(p.html)![1]);
  }
  t.equal(seen.size, 3, 'three different texts');
});

t.test('SBP bank and wallet pages: a missing or bad reference is an error page, a stale one a 409', async (t) => {
  const id = await newPayment(s, m.key);
  const q = await s.request('POST', `/checkout/${id}/submit-method`, { body: { method_code: 'sbp' } });
  const sbpRef = new URL(q.body.next_action.qr_raw_payload).searchParams.get('ref')!;
  for (const path of [`/sandbox/sbp/${id}`, `/sandbox/sbp/${id}?ref=`, `/sandbox/sbp/${id}?ref=nope`, `/sandbox/wallet/${id}?wallet=tpay`]) {
    const p = await call('GET', path);
    t.same([p.status, codeOf(p.html)], [400, 'reference_invalid'], path);
    t.notMatch(p.html, /<form/);
  }
  for (const kind of ['sbp', 'wallet']) {
    const p = await call('POST', `/sandbox/${kind}/${id}`, { answer: 'approve' });
    t.same([p.status, p.location, codeOf(p.html)], [400, null, 'reference_invalid'], `${kind} answer without ref`);
  }
  const bad = await call('POST', `/sandbox/sbp/${id}`, { ref: sbpRef, answer: 'Y' });
  t.same([bad.status, codeOf(bad.html)], [400, 'answer_invalid']);
  t.equal(await statusOf(id), 'requires_action');

  const w = await s.request('POST', `/checkout/${id}/submit-method`, { body: { method_code: 'tpay' } });
  const walletUrl = new URL(w.body.next_action.redirect_url);
  const oldBank = await call('GET', `/sandbox/sbp/${id}?ref=${sbpRef}`);
  t.same([oldBank.status, codeOf(oldBank.html)], [409, 'checkout_action_stale'], 'the replaced QR attempt');
  const page = await call('GET', walletUrl.pathname + walletUrl.search);
  t.equal(page.status, 200);
  const ok = await call('POST', walletUrl.pathname, { ref: hiddenRef(page.html)!, answer: 'approve' });
  t.same([ok.status, ok.location], [302, `/pay/${id}?lang=en`]);
  t.equal(await statusOf(id), 'succeeded');
  const after = await call('GET', walletUrl.pathname + walletUrl.search);
  t.same([after.status, codeOf(after.html)], [409, 'checkout_closed']);
});

t.test('unknown and live payments: 404; a form body over the limit: 413 page', async (t) => {
  t.equal((await call('POST', '/sandbox/3ds/EXZ-20261121-0000000000', { ref: 'sbx_3dsok_x', answer: 'Y' })).status, 404);
  const live = await newPayment(s, m.liveKey);
  t.equal((await call('POST', `/sandbox/sbp/${live}`, { ref: 'sbx_sbp_x', answer: 'approve' })).status, 404, 'no sandbox answers for live payments');
  const { acs } = await challenge();
  const big = await call('POST', acs, { creq: 'x'.repeat(5000) });
  t.same([big.status, codeOf(big.html)], [413, 'body_too_large']);
});

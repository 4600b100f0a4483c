// Concurrent payers of one payment link through two server processes on one database never exceed
// max_uses: every use is reserved under the link row's version before its payment exists, a declined
// payment returns its use, and a paid one spends it.
import t from 'tap';
import { callChild, type Child } from '../helpers/child.js';
import { startCluster } from '../helpers/cluster.js';
import { PG_URL } from '../helpers/env.js';
import { CARDS, card } from '../helpers/checkout.js';
import { payLink } from '../helpers/links.js';

if (!PG_URL) {
  t.plan(0, 'skipped: needs DATABASE_URL (several server processes share one Postgres; CI sets it)');
  process.exit(0);
}

const call = callChild;

const cluster = await startCluster(t, 'lnk');
const a = await cluster.start();
const b = await cluster.start();
const m = await call(a, 'POST', '/internal/merchants', 'adm', { name: 'links', rate_limit_per_minute: 1000000 });
const key = (await call(a, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'merchant', mode: 'test' })).body.key as string;

/** N payers at once, alternating between the two processes; the payment ids of those who got one. */
async function race(linkId: string, n: number, form: Record<string, string> = {}): Promise<{ created: string[]; statuses: number[] }> {
  const rs = await Promise.all(Array.from({ length: n }, (_, i) => payLink((i % 2 ? b : a).url, linkId, form)));
  return { created: rs.filter((r) => r.paymentId).map((r) => r.paymentId!), statuses: rs.map((r) => r.status) };
}

async function state(linkId: string) {
  const l = (await cluster.db.query('SELECT uses, holds FROM links WHERE id = $1', [linkId])).rows[0];
  const p = (await cluster.db.query(`SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending, count(*) FILTER (WHERE status = 'succeeded')::int AS paid
    FROM payments WHERE link_id = $1`, [linkId])).rows[0];
  return { uses: l.uses as number, holds: Object.keys(l.holds).length, pending: p.pending as number, paid: p.paid as number };
}

t.test('a static link with max_uses 5: 40 payers, then declines return uses, then it is exhausted', async (t) => {
  const l = await call(a, 'POST', '/api/v2/links', key, { type: 'static', amount: 1000, max_uses: 5 });
  t.equal(l.status, 201);
  const id = l.body.id as string;

  const first = await race(id, 40);
  t.equal(first.created.length, 5, `exactly max_uses payers got a payment (statuses ${[...new Set(first.statuses)]})`);
  t.ok(first.statuses.every((s) => s === 302 || s === 409), 'the others were told the link is busy');
  t.same(await state(id), { uses: 0, holds: 5, pending: 5, paid: 0 });

  // Three pay, two are declined (one on each process): the declined return their uses.
  const outcomes = await Promise.all(first.created.map((pid, i) =>
    call(i % 2 ? b : a, 'POST', `/checkout/${pid}/pay`, null, card(i < 3 ? CARDS.success : CARDS.declined))));
  t.same(outcomes.map((o) => o.body.status), ['succeeded', 'succeeded', 'succeeded', 'failed', 'failed']);
  t.same(await state(id), { uses: 3, holds: 0, pending: 0, paid: 3 });

  const second = await race(id, 40);
  t.equal(second.created.length, 2, 'only the two returned uses are given again');
  await Promise.all(second.created.map((pid, i) => call(i % 2 ? b : a, 'POST', `/checkout/${pid}/pay`, null, card(CARDS.success))));
  t.same(await state(id), { uses: 5, holds: 0, pending: 0, paid: 5 });

  const third = await race(id, 20);
  t.equal(third.created.length, 0, 'exhausted: nobody gets a payment');
  t.ok(third.statuses.every((s) => s === 409));
  const got = await call(b, 'GET', `/api/v2/links/${id}`, key);
  t.match(got.body, { uses: 5, max_uses: 5, active: false });
});

t.test('a dynamic link with max_uses 1 and a payer-set amount: 30 payers at once through both processes, one payment', async (t) => {
  const l = await call(b, 'POST', '/api/v2/links', key, { description: 'One customer', max_uses: 1 });
  const r = await race(l.body.id, 30, { amount: '10.50' });
  t.equal(r.created.length, 1, `statuses ${[...new Set(r.statuses)]}`);
  t.same(await state(l.body.id), { uses: 0, holds: 1, pending: 1, paid: 0 });
});

t.test('four links with max_uses 20, 50 payers each, all at once: never more payments than uses', async (t) => {
  const links = await Promise.all(Array.from({ length: 4 }, () => call(a, 'POST', '/api/v2/links', key, { type: 'static', amount: 100, max_uses: 20 })));
  const rounds = await Promise.all(links.map((l) => race(l.body.id, 50)));
  for (const [i, r] of rounds.entries()) {
    const id = links[i].body.id as string;
    t.ok(r.created.length <= 20, `link ${i}: ${r.created.length} payments for 20 uses`);
    t.same(await state(id), { uses: 0, holds: r.created.length, pending: r.created.length, paid: 0 }, `link ${i}: one hold per payment`);
  }
});

// What a gateway payment keeps in its JSON columns: a session's options and the checkout state
// without their null fields (every reader fills them back from the defaults), and SQL NULL, not a
// jsonb null, for an absent card, failure or charge. The events copy the row, so they are compact
// too. A row written whole, as before this change, reads exactly as its compact form.
import t from 'tap';
import { answerChallenge, card, CARDS } from '../helpers/checkout.js';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t, {});

const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const keyed = await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' });
const sk = keyed.body.key as string;
must((await s.admin('PATCH', `/internal/merchants/${m.id}`, { card_data_allowed: true })).status === 200, 'card data allowed');
const ok = { amount: 4900, currency: 'RUB' };

/** Setup that must hold before the tests run (an assertion here would end the top-level test early). */
function must(cond: boolean, what: string): void {
  if (!cond) throw new Error(`setup: ${what}`);
}

/** Top-level fields whose value is a jsonb null, of a JSON column of these payments, and of their events' copies. */
async function nullFields(ids: string[]): Promise<string[]> {
  const r = await s.db.query<{ at: string }>(
    `SELECT p.id || '.' || c.col || '.' || x.key AS at
       FROM payments p, LATERAL (VALUES ('session', p.session), ('checkout', p.checkout)) AS c(col, j), jsonb_each(c.j) x
      WHERE p.id = ANY($1) AND x.value = 'null'::jsonb
     UNION ALL
     SELECT e.type || '.' || c.col || '.' || x.key
       FROM events e, LATERAL (VALUES ('session', e.data->'session'), ('checkout', e.data->'checkout')) AS c(col, j),
            jsonb_each(CASE WHEN jsonb_typeof(c.j) = 'object' THEN c.j ELSE '{}' END) x
      WHERE e.aggregate_id = ANY($1) AND x.value = 'null'::jsonb`, [ids]);
  return r.rows.map((x) => x.at);
}

async function views(id: string) {
  const gets = [`/v2/payments/${id}`, `/v2/payments/checkout/${id}`];
  const out: unknown[] = [];
  for (const path of gets) {
    const r = await s.request('GET', path, { key: sk });
    if (r.status === 200) out.push({ ...r.body, request_id: null });
  }
  const status = await s.request('GET', `/checkout/${id}/status`);
  out.push({ ...status.body, request_id: null });
  return out;
}

// A direct payment, a session paid through a 3-D Secure challenge (its checkout state held a next
// action on the way), and an open session with no options at all.
const direct = await s.request('POST', '/v2/payments', { key: sk, body: { ...ok, card: card(CARDS.success) } });
must(direct.status === 200, direct.text);
const challenged = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { ...ok, success_url: 'https://shop.example/ok', settings: { button_text: 'Pay' } } });
must(challenged.status === 200, challenged.text);
const paying = await s.request('POST', `/checkout/${challenged.body.id}/pay`, { body: card(CARDS.challenge) });
must(paying.body.status === 'requires_action', paying.text);
const bare = await s.request('POST', '/v2/payments/checkout', { key: sk, body: ok });
must(bare.status === 200, bare.text);
const ids = [direct.body.id as string, challenged.body.id as string, bare.body.id as string];

t.test('no null field is stored, in the row or in its events', async (t) => {
  const held = await s.db.query(`SELECT checkout->'nextAction' AS na FROM payments WHERE id = $1`, [challenged.body.id]);
  t.equal(held.rows[0].na.type, 'three_ds_challenge', 'the awaited challenge is stored');
  t.same(await nullFields(ids), [], 'while a challenge is awaited');
  const got = await s.request('GET', `/v2/payments/checkout/${challenged.body.id}`, { key: sk });
  t.equal(await answerChallenge(s, challenged.body.id, got.body.next_action.creq, 'Y'), 302);
  t.same(await nullFields(ids), [], 'after the payment settled');
  const sqlNull = await s.db.query(
    `SELECT id FROM payments WHERE id = ANY($1) AND (jsonb_typeof(charged) = 'null' OR jsonb_typeof(failure) = 'null' OR jsonb_typeof(card) = 'null')`, [ids]);
  t.same(sqlNull.rows, [], 'an absent charge, failure or card is SQL NULL');
  const session = await s.db.query(`SELECT session FROM payments WHERE id = $1`, [challenged.body.id]);
  t.same(session.rows[0].session, { successUrl: 'https://shop.example/ok', buttonText: 'Pay' }, 'only the options given');
});

t.test('the answers show every field, and a row written whole reads the same', async (t) => {
  const before = await Promise.all(ids.map(views));
  const bareStatus = before[2].at(-1) as Record<string, unknown>;
  t.ok('return_url' in bareStatus && bareStatus.return_url === null, 'a session without URLs still answers return_url null');
  t.equal((before[1].at(-1) as Record<string, unknown>).return_url, 'https://shop.example/ok');
  const paid = before[1][1] as Record<string, unknown>;
  t.match(paid, { status: 'succeeded', selected_method_code: 'card', next_action: null });
  // The form every earlier version wrote: each field present, null where unset; a jsonb null for
  // an absent charge or failure.
  const whole = await s.db.query(
    `UPDATE payments SET
       session = '{"webhookUrl":null,"successUrl":null,"cancelUrl":null,"paymentMethods":null,"buttonText":null,"autoReturn":null,"initialMethod":null}'::jsonb || session,
       checkout = CASE WHEN checkout IS NULL THEN NULL
         ELSE '{"method":null,"awaiting":null,"nextAction":null,"ref":null,"attempts":0,"card":null,"token":null}'::jsonb || checkout END,
       charged = COALESCE(charged, 'null'), failure = COALESCE(failure, 'null')
     WHERE id = ANY($1)`, [ids]);
  t.equal(whole.rowCount, 3);
  t.not((await nullFields(ids)).length, 0, 'the rows now hold null fields');
  t.same(await Promise.all(ids.map(views)), before, 'every answer is unchanged');
});

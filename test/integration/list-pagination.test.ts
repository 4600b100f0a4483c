// GET /payments: cursor pagination returns every payment exactly once; filters narrow it.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant();

const created: string[] = [];
for (let batch = 0; batch < 23; batch++) {
  const rs = await Promise.all(Array.from({ length: 10 }, (_, i) =>
    s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100 + batch * 10 + i, order_id: `ord-${batch % 3}` } })));
  for (const r of rs) { if (r.status !== 201) throw new Error(r.text); created.push(r.body.id); }
}

t.test('230 payments over pages of 25: each exactly once, newest first', async (t) => {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const q: string = cursor ? `?starting_after=${cursor}` : '';
    const r = await s.request('GET', `/api/v2/payments${q}`, { key: m.key });
    t.equal(r.status, 200);
    t.equal(r.body.object, 'list');
    t.ok(r.body.data.length <= 25);
    seen.push(...r.body.data.map((p: { id: string }) => p.id));
    cursor = r.body.has_more ? r.body.next_cursor : null;
    if (!r.body.has_more) t.equal(r.body.next_cursor, null);
    pages++;
  } while (cursor && pages < 20);
  t.equal(pages, 10);
  t.equal(seen.length, 230);
  t.equal(new Set(seen).size, 230);
  t.same([...seen].sort(), [...created].sort());
  const times = (await s.db.query('SELECT id, created_at FROM payments')).rows.reduce((acc: Record<string, number>, r: { id: string; created_at: Date }) => {
    acc[r.id] = r.created_at.getTime(); return acc;
  }, {});
  t.ok(seen.every((id, i) => i === 0 || times[seen[i - 1]] >= times[id]), 'newest first');
});

t.test('limit 100 and the bounds of limit', async (t) => {
  const r = await s.request('GET', '/api/v2/payments?limit=100', { key: m.key });
  t.equal(r.body.data.length, 100);
  t.equal(r.body.has_more, true);
  for (const bad of ['0', '101', 'abc', '2.5', '-1']) {
    const b = await s.request('GET', `/api/v2/payments?limit=${bad}`, { key: m.key });
    t.equal(b.status, 422, bad);
    t.equal(b.body.error.code, 'limit_invalid');
  }
});

t.test('filters: status, order_id, from and to in both formats', async (t) => {
  const byOrder = await s.request('GET', '/api/v2/payments?order_id=ord-1&limit=100', { key: m.key });
  t.ok(byOrder.body.data.length > 0 && byOrder.body.data.every((p: { order_id: string }) => p.order_id === 'ord-1'));
  const pending = await s.request('GET', '/api/v2/payments?status=succeeded', { key: m.key });
  t.equal(pending.body.data.length, 0);
  const today = new Date().toISOString().slice(0, 10);
  const day = await s.request('GET', `/api/v2/payments?from=${today}&to=${today}&limit=100`, { key: m.key });
  t.equal(day.body.data.length, 100);
  const past = await s.request('GET', '/api/v2/payments?to=2020-01-01', { key: m.key });
  t.equal(past.body.data.length, 0);
  const now = new Date();
  const minute = `${today} ${String(now.getUTCHours()).padStart(2, '0')}:${String(now.getUTCMinutes()).padStart(2, '0')}`;
  const hhmm = await s.request('GET', `/api/v2/payments?to=${encodeURIComponent(minute)}&limit=1`, { key: m.key });
  t.equal(hhmm.status, 200);
  t.equal(hhmm.body.data.length, 1, 'to HH:MM includes that minute');
  for (const [q, code] of [['status=paid', 'status_invalid'], ['from=2026-13-01', 'date_invalid'], ['to=2026-02-30', 'date_invalid'],
    ['from=yesterday', 'date_invalid'], ['starting_after=EXZ-20260101-AAAAAAAAAA', 'cursor_invalid'], ['colour=red', 'parameter_unknown'],
    ['from=2026-05-02&to=2026-05-01', 'date_invalid']]) {
    const r = await s.request('GET', `/api/v2/payments?${q}`, { key: m.key });
    t.equal(r.status, 422, q);
    t.equal(r.body.error.code, code, q);
  }
});

t.test('a cursor of another merchant is refused', async (t) => {
  const other = await s.merchant();
  const r = await s.request('GET', `/api/v2/payments?starting_after=${created[0]}`, { key: other.key });
  t.equal(r.status, 422);
  t.equal(r.body.error.code, 'cursor_invalid');
});

t.test('GET by order_id returns the latest with that number', async (t) => {
  const r = await s.request('GET', '/api/v2/payments/ord-2', { key: m.key });
  const { rows } = await s.db.query("SELECT id FROM payments WHERE order_id = 'ord-2' ORDER BY created_at DESC, id DESC LIMIT 1");
  t.equal(r.body.id, rows[0].id);
});

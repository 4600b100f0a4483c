// The access log's batched destination: lines written in one turn leave in one write, every write
// holds whole lines and stays at most `max` bytes (atomic on a pipe), nothing is lost or reordered,
// and the access lines are byte for byte what pino writes for the same entry.
import t from 'tap';
import { pino } from 'pino';
import { accessLines, accessThrough, BatchedLines, redactOptions, timeOptions, type AccessEntry } from '../../src/log.js';

const nextTurn = () => new Promise((r) => setImmediate(r));

t.test('one write per turn, whole lines, under the bound, in order', async (t) => {
  const writes: string[] = [];
  const out = new BatchedLines(1, 1000, (_fd, s) => { writes.push(s); });
  const lines = Array.from({ length: 50 }, (_, i) => `{"n":${i},"pad":"${'x'.repeat(i % 7 * 20)}"}\n`);
  for (const l of lines.slice(0, 3)) out.write(l);
  t.same(writes, [], 'nothing written inside the turn');
  await nextTurn();
  t.same(writes, [lines.slice(0, 3).join('')], 'the turn\'s lines in one write');
  writes.length = 0;
  for (const l of lines) out.write(l);
  await nextTurn();
  t.ok(writes.length > 1, 'a turn over the bound writes more than once');
  for (const w of writes) {
    t.ok(w.length <= 1000, `a write of ${w.length} bytes stays under the bound`);
    t.ok(w.endsWith('\n') && w.split('\n').slice(0, -1).every((l) => l.startsWith('{') && l.endsWith('}')), 'whole lines only');
  }
  t.equal(writes.join(''), lines.join(''), 'every line, in order');
});

t.test('flush() writes what is gathered at once; an empty flush writes nothing', async (t) => {
  const writes: string[] = [];
  const out = new BatchedLines(1, 1000, (_fd, s) => { writes.push(s); });
  out.flush();
  out.write('a\n');
  out.flush();
  t.same(writes, ['a\n']);
  await nextTurn();
  t.same(writes, ['a\n'], 'the scheduled flush finds nothing left');
});

t.test('access lines are the lines pino writes for the same entry, batched', async (t) => {
  const writes: string[] = [];
  const lines = accessLines(new BatchedLines(1, 3584, (_fd, s) => { writes.push(s); }));
  const viaPino: string[] = [];
  const log = pino({ name: 'payments-engine', level: 'info', base: { pid: process.pid }, ...timeOptions, ...redactOptions }, { write: (s: string) => { viaPino.push(s); } });
  const entries: AccessEntry[] = [
    { method: 'GET', route: '/api/v2/payments/:id', status: 200, ms: 1.3, requestId: 'req_1', merchantId: 'mer_1' },
    { method: 'POST', route: '/api/v2/payments', status: 429, ms: 0.2, requestId: 'req_2', merchantId: 'mer_2', reason: 'rate_limited' },
    { method: 'GET', route: 'unmatched', status: 404, ms: 0, requestId: 'req_3', reason: 'route "x"\\ \u2028', aborted: true },
    { method: 'PO"ST', route: '/v2/health', status: 200, ms: 12.5, requestId: 'req_4', merchantId: undefined, reason: undefined, aborted: undefined },
    // A request that paid a payment: its canonical line carries the payment (no second line for it).
    { method: 'POST', route: '/checkout/:id/pay', status: 200, ms: 40.2, requestId: 'req_5', paymentId: 'cs_1', paymentStatus: 'succeeded', paymentMethod: 'card', brand: 'visa', last4: '4242' },
    { method: 'POST', route: '/v2/payments', status: 200, ms: 50, requestId: 'req_6', merchantId: 'mer_6', paymentId: 'cs_2', paymentStatus: 'processing', paymentMethod: 'token' },
  ];
  for (const e of entries) { lines(e); accessThrough(log)(e); }
  t.same(writes, [], 'nothing written inside the turn');
  await nextTurn();
  t.equal(writes.length, 1, 'one write for the turn');
  const ours = writes[0].split('\n').slice(0, -1);
  t.equal(ours.length, entries.length);
  const iso = /"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z",/;
  for (let i = 0; i < entries.length; i++) t.match(ours[i], iso, `entry ${i}: an ISO 8601 time, as pino's isoTime writes it`);
  const noTime = (l: string) => l.replace(iso, '');
  for (let i = 0; i < entries.length; i++) t.equal(noTime(ours[i]), noTime(viaPino[i].trimEnd()), `entry ${i}: byte for byte as pino, but the time`);
});

t.test('hostile text in an access entry still makes one valid JSON line that reads back as sent', async (t) => {
  const writes: string[] = [];
  const lines = accessLines(new BatchedLines(1, 3584, (_fd, s) => { writes.push(s); }));
  const e: AccessEntry = {
    method: 'GET\u0000\n{"level":60}', route: 'unmatched', status: 404, ms: 0.1, requestId: 'req_\ud800', reason: '__proto__ \udfff"\\', merchantId: '\u2029',
  };
  lines(e);
  await nextTurn();
  t.equal(writes.length, 1);
  t.equal(writes[0].split('\n').length, 2, 'one line: a newline in a field stays escaped');
  const back = JSON.parse(writes[0]);
  t.match(back, { level: 30, msg: 'request', method: e.method, requestId: e.requestId, reason: e.reason, merchantId: e.merchantId });
});

// The access log's batched destination: lines written in one turn leave in one write, every write
// holds whole lines and stays at most `max` bytes (atomic on a pipe), nothing is lost or reordered,
// and the access logger's lines are pino JSON with the log's redaction.
import t from 'tap';
import { BatchedLines, createAccessLogger } from '../../src/log.js';

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

t.test('the access logger writes redacted pino lines through it', async (t) => {
  const writes: string[] = [];
  const log = createAccessLogger('info', new BatchedLines(1, 3584, (_fd, s) => { writes.push(s); }));
  log.info({ route: '/api/v2/payments/:id', status: 200, authorization: 'Bearer sk_secret' }, 'request');
  log.debug('not at info');
  await nextTurn();
  t.equal(writes.length, 1);
  const line = JSON.parse(writes[0]);
  t.match(line, { level: 30, msg: 'request', route: '/api/v2/payments/:id', status: 200, authorization: '[redacted]' });
});

// The replay cache's stored form: what it writes it reads back byte for byte, and it still reads the
// JSON form a process of the previous release writes.
import t from 'tap';
import { decodeAnswer, encodeAnswer } from '../../src/store/replay-cache.js';

const answer = { status: 201, requestId: 'req_1a2b3c000042', body: '{"id":"pay_1","description":"line one\\nline two","note":"a\nraw newline, \\"quotes\\" and \u00e9"}' };

t.test('a written answer reads back whole, with its hash', async (t) => {
  const raw = encodeAnswer('Zk9vYmFy-_hash', answer);
  t.ok(raw.startsWith('d1\n'), 'the line form');
  t.ok(raw.endsWith(answer.body), 'the body is stored as it was sent, not escaped');
  t.same(decodeAnswer(raw), { hash: 'Zk9vYmFy-_hash', answer });
  t.same(decodeAnswer(encodeAnswer('h', { status: 200, requestId: 'req_x', body: '' })), { hash: 'h', answer: { status: 200, requestId: 'req_x', body: '' } });
});

t.test('the JSON form of the previous release is still read', async (t) => {
  const old = JSON.stringify({ s: 'd', h: 'oldhash', status: answer.status, body: answer.body, rid: answer.requestId });
  t.same(decodeAnswer(old), { hash: 'oldhash', answer });
});

t.test('a field with a newline is written in the JSON form, and reads back the same', async (t) => {
  const odd = { ...answer, requestId: 'req\nodd' };
  const raw = encodeAnswer('h\nx', odd);
  t.ok(raw.startsWith('{'));
  t.same(decodeAnswer(raw), { hash: 'h\nx', answer: odd });
});

t.test('a value in neither form is no answer', async (t) => {
  for (const raw of ['', 'd1\n', 'd1\nhash\n201', 'd1\nhash\nabc\nreq\n{}', '{"s":"x"}', '{not json', 'plain']) t.equal(decodeAnswer(raw), null, JSON.stringify(raw));
});

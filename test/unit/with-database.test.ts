// A connection string naming another database, in the forms DATABASE_URL takes (the bench and the
// tests create their databases beside the one it names).
import t from 'tap';
import { withDatabase } from '../../src/store/db.js';

t.test('the database is replaced, everything else kept', async (t) => {
  const cases: [string, string][] = [
    ['postgres://postgres@127.0.0.1:5432/test', 'postgres://postgres@127.0.0.1:5432/bench_1'],
    ['postgresql://u:p%40ss@db.example:6432/app?sslmode=require', 'postgresql://u:p%40ss@db.example:6432/bench_1?sslmode=require'],
    ['postgres://u@/app?host=/var/run/postgresql', 'postgres://u@/bench_1?host=/var/run/postgresql'],
    ['postgres://127.0.0.1', 'postgres://127.0.0.1/bench_1'],
    ['postgres://127.0.0.1?application_name=x', 'postgres://127.0.0.1/bench_1?application_name=x'],
  ];
  for (const [from, want] of cases) t.equal(withDatabase(from, 'bench_1'), want, from);
  t.throws(() => withDatabase('mysql://h/db', 'x'), /not a postgres/);
});

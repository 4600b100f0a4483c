// PG_LOCK_TIMEOUT_MS: a lock wait's own deadline, below the statement timeout (src/config.ts).
import t from 'tap';
import { loadConfig } from '../../src/config.js';

t.test('the default, a chosen value, and off', async (t) => {
  t.equal(loadConfig({}).db.lockMs, 2_000, '2 s by default, under the 5 s statement timeout');
  t.equal(loadConfig({ PG_LOCK_TIMEOUT_MS: '750' }).db.lockMs, 750);
  t.equal(loadConfig({ PG_LOCK_TIMEOUT_MS: '0' }).db.lockMs, 0, '0: off');
});

t.test('at or above the statement timeout it could never fire first: off', async (t) => {
  t.equal(loadConfig({ PG_STATEMENT_TIMEOUT_MS: '1500' }).db.lockMs, 0, 'the default 2 s above a 1.5 s statement timeout');
  t.equal(loadConfig({ PG_STATEMENT_TIMEOUT_MS: '3000', PG_LOCK_TIMEOUT_MS: '3000' }).db.lockMs, 0);
  t.equal(loadConfig({ PG_STATEMENT_TIMEOUT_MS: '0', PG_LOCK_TIMEOUT_MS: '9000' }).db.lockMs, 9000, 'no statement timeout: the lock timeout stands');
});

t.test('bad values are refused at start, naming the setting', async (t) => {
  for (const bad of ['-1', 'abc', '1.5', '1e400', '2000\u0000', '\ud800']) {
    t.throws(() => loadConfig({ PG_LOCK_TIMEOUT_MS: bad }), /PG_LOCK_TIMEOUT_MS must be an integer >= 0/, JSON.stringify(bad));
  }
});

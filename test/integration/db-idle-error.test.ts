// A database connection that fails while idle in a pool (the server restarted, an operator killed
// it) is logged with its cause and replaced: no query saw the error, so the log is its only trace.
import t from 'tap';
import pg from 'pg';
import { startTestServer } from '../helpers/server.js';
import { capturingLogger } from '../helpers/browser.js';
import { until } from '../helpers/wait.js';

const { log, lines } = capturingLogger();
const s = await startTestServer(t, {}, { log });
const warned = () => lines.find((l) => l.includes('an idle database connection failed'));

t.test('an idle connection killed under the front end\'s pool is logged, and the next request is served', async (t) => {
  t.equal((await s.request('GET', '/v2/health')).status, 200, 'the health check leaves a connection idle in the front end\'s pool');
  t.equal(warned(), undefined, 'nothing to report before');
  const admin = new pg.Client({ connectionString: s.srv.databaseUrl });
  await admin.connect();
  t.teardown(() => admin.end());
  const killed = await admin.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND application_name LIKE '%:front' AND state = 'idle' AND pid <> pg_backend_pid()`);
  t.ok(killed.rowCount! >= 1, 'an idle connection of the front end was found and killed');
  await until('the pool reports the failed connection', () => warned() !== undefined);
  const entry = JSON.parse(warned()!);
  t.equal(entry.level, 40, 'a warning');
  t.match(entry.pool, /:front$/, 'names the pool');
  t.match(entry.err.message, /terminat/i, 'carries the cause');
  t.equal((await s.request('GET', '/v2/health')).status, 200, 'the pool opens another connection');
});

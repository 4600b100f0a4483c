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
  const kill = async () => (await admin.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND application_name LIKE '%:front' AND state = 'idle' AND pid <> pg_backend_pid()`)).rowCount!;
  t.ok(await kill() >= 1, 'an idle connection of the front end was found and killed');
  // A sweep of the main thread may have taken that connection from the pool just before it was
  // killed (Postgres shows it idle until its query arrives): then its query saw the error, not the
  // pool. Each look kills the front end's idle connections again until one dies in the pool.
  await until('the pool reports the failed connection', async () => warned() !== undefined || (await kill(), false), 20_000, 100);
  const entry = JSON.parse(warned()!);
  t.equal(entry.level, 40, 'a warning');
  t.match(entry.pool, /:front$/, 'names the pool');
  t.match(entry.err.message, /terminat/i, 'carries the cause');
  t.equal((await s.request('GET', '/v2/health')).status, 200, 'the pool opens another connection');
});

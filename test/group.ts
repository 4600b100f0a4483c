// Runs several test files in one process, one after the other, for the suite's runner (runner.ts):
// the unit files, and the integration files that share their servers. Each cost more to start (a
// node process, tap, the modules, a server with its database) than to run.
//
// Each file's top-level tests join the one root test in the order the files are given, so the TAP
// stream, the counts and the exit code are those of one file; a failure names its file in its
// `at:` block. Two tests named after each file frame its tests: the first holds the root open
// while the file loads, the last closes the servers that were the file's own. Within the group, test servers of the same settings are one server
// (test/helpers/server.ts), closed at the end. A file that cannot even be loaded is a failed test
// named after it, and the next file still runs.
//
//   node dist/test/group.js a.test.js b.test.js …
import t from 'tap';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface TestGroup { afterFile: (() => Promise<void>)[]; atEnd: (() => Promise<void>)[] }
const group: TestGroup = { afterFile: [], atEnd: [] };
(globalThis as { [k: symbol]: TestGroup })[Symbol.for('payments-engine.test-group')] = group;

async function runAll(work: (() => Promise<void>)[]): Promise<void> {
  for (const w of work.splice(0)) await w();
}

t.teardown(() => runAll(group.atEnd));
for (const file of process.argv.slice(2)) {
  const name = path.relative(process.cwd(), file);
  // tap ends the root when it has nothing queued: a test that waits for the file's loading keeps
  // it open while the file starts its servers; the file's own tests queue behind it. (A file that
  // awaits a test at its top level would wait for itself here: such a file runs alone, runner.ts.)
  let loaded!: () => void;
  const loading = new Promise<void>((resolve) => { loaded = resolve; });
  void t.test(`${name}: loaded`, async (t) => { t.equal(await loading, undefined, 'its top level ran'); });
  try {
    await import(pathToFileURL(path.resolve(file)).href);
  } catch (err) {
    t.fail(`${name} could not be loaded`, { error: err instanceof Error ? err.stack ?? err.message : String(err) });
  } finally {
    loaded();
  }
  // Queued after the file's own top-level tests, so it runs when they have ended.
  await t.test(`${name}: done`, async (t) => {
    await runAll(group.afterFile);
    t.pass('its own servers closed');
  });
}

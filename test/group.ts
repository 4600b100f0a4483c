// Runs several test files in one process, one after the other, for the suite's runner (runner.ts):
// the unit files, which start no server and hold no state between files, each cost more to start
// (a node process, tap, the modules) than to run. Each file's top-level tests join the one root
// test in the order the files are given, so the TAP stream, the counts and the exit code are those
// of one file; a failure names its file in its `at:` block. A file that cannot even be loaded is a
// failed test named after it, and the next file still runs.
//
//   node dist/test/group.js a.test.js b.test.js …
import t from 'tap';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

for (const file of process.argv.slice(2)) {
  try {
    await import(pathToFileURL(path.resolve(file)).href);
  } catch (err) {
    t.fail(`${file} could not be loaded`, { error: err instanceof Error ? err.stack ?? err.message : String(err) });
  }
}

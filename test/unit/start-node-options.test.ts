// npm start's node options are written once, in package.json's start script: the Dockerfile sets
// the same NODE_OPTIONS, and the bench reads them from the script (bench/start-options.ts), so
// the server measured is the server shipped. No servers: reads the files.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startScriptNodeOptions } from '../../bench/start-options.js';
import { ROOT } from '../helpers/child.js';

t.test('the start script sets the main thread heap limit', async (t) => {
  t.match(startScriptNodeOptions(), /^--max-old-space-size=\d+$/);
});

t.test('the Dockerfile sets the same NODE_OPTIONS', async (t) => {
  const docker = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const m = /^\s+NODE_OPTIONS=(\S+)/m.exec(docker);
  t.ok(m, 'the Dockerfile sets NODE_OPTIONS');
  t.equal(m?.[1], startScriptNodeOptions(), 'the same flags as npm start');
});

t.test('a start script without the defaults is refused, not read as none', async (t) => {
  t.throws(() => startScriptNodeOptions('npm run build --silent && node dist/src/main.js'), /no longer reads NODE_OPTIONS/);
  t.equal(startScriptNodeOptions('x && NODE_OPTIONS="--a=1 --b ${NODE_OPTIONS:-}" node dist/src/main.js'), '--a=1 --b');
});

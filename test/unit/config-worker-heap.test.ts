// loadConfig: the V8 heap limits of the actor worker threads (WORKER_YOUNG_GENERATION_MB,
// WORKER_OLD_GENERATION_MB): their defaults, 0 for V8's own default, and refusals of bad values.
import t from 'tap';
import { loadConfig } from '../../src/config.js';

t.test('defaults', async (t) => {
  const c = loadConfig({});
  t.equal(c.workerYoungGenerationMb, 24);
  t.equal(c.workerOldGenerationMb, 512);
});

t.test('set, and 0 for V8\'s default', async (t) => {
  const c = loadConfig({ WORKER_YOUNG_GENERATION_MB: '48', WORKER_OLD_GENERATION_MB: '1024' });
  t.equal(c.workerYoungGenerationMb, 48);
  t.equal(c.workerOldGenerationMb, 1024);
  const d = loadConfig({ WORKER_YOUNG_GENERATION_MB: '0', WORKER_OLD_GENERATION_MB: '0' });
  t.equal(d.workerYoungGenerationMb, 0);
  t.equal(d.workerOldGenerationMb, 0);
});

t.test('bad values stop the start naming the variable', async (t) => {
  t.throws(() => loadConfig({ WORKER_YOUNG_GENERATION_MB: '-1' }), /WORKER_YOUNG_GENERATION_MB must be an integer >= 0/);
  t.throws(() => loadConfig({ WORKER_YOUNG_GENERATION_MB: '12MB' }), /WORKER_YOUNG_GENERATION_MB/);
  t.throws(() => loadConfig({ WORKER_OLD_GENERATION_MB: '1.5' }), /WORKER_OLD_GENERATION_MB must be an integer >= 0/);
});

t.test('a heap too small to run is refused', async (t) => {
  t.throws(() => loadConfig({ WORKER_YOUNG_GENERATION_MB: '2' }), /WORKER_YOUNG_GENERATION_MB must be 0 \(V8's default\) or at least 3/);
  t.throws(() => loadConfig({ WORKER_OLD_GENERATION_MB: '32' }), /WORKER_OLD_GENERATION_MB must be 0 \(V8's default\) or at least 64/);
  t.equal(loadConfig({ WORKER_YOUNG_GENERATION_MB: '3', WORKER_OLD_GENERATION_MB: '64' }).workerOldGenerationMb, 64);
});

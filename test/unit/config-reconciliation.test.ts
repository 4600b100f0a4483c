// loadConfig: the reconciliation settings (RECONCILIATION_INTERVAL_MS, _WINDOW_MS, _DELAY_MS): their
// defaults, 0 turning the reconciler off, and refusals of bad values, naming the variable.
import t from 'tap';
import { loadConfig } from '../../src/config.js';

t.test('defaults: every minute, one-hour windows, reconciled five minutes after they end', async (t) => {
  t.same(loadConfig({}).reconciliation, { intervalMs: 60_000, windowMs: 3_600_000, delayMs: 300_000 });
  t.equal(loadConfig({ ATTEMPT_RECOVERY_AFTER_MS: '600000' }).reconciliation.delayMs, 600_000, 'the delay follows a longer recovery delay');
});

t.test('set, and 0 for off', async (t) => {
  const c = loadConfig({ RECONCILIATION_INTERVAL_MS: '0', RECONCILIATION_WINDOW_MS: '60000', RECONCILIATION_DELAY_MS: '120000' });
  t.same(c.reconciliation, { intervalMs: 0, windowMs: 60_000, delayMs: 120_000 });
});

t.test('bad values stop the start naming the variable', async (t) => {
  t.throws(() => loadConfig({ RECONCILIATION_INTERVAL_MS: '-5' }), /RECONCILIATION_INTERVAL_MS must be an integer >= 0/);
  t.throws(() => loadConfig({ RECONCILIATION_INTERVAL_MS: '1m' }), /RECONCILIATION_INTERVAL_MS/);
  t.throws(() => loadConfig({ RECONCILIATION_WINDOW_MS: '999' }), /RECONCILIATION_WINDOW_MS must be an integer >= 1000/);
  t.throws(() => loadConfig({ RECONCILIATION_WINDOW_MS: '1500.5' }), /RECONCILIATION_WINDOW_MS/);
  t.throws(() => loadConfig({ RECONCILIATION_DELAY_MS: '0' }), /RECONCILIATION_DELAY_MS must be an integer >= 1/);
  t.throws(() => loadConfig({ RECONCILIATION_DELAY_MS: '30000' }), /RECONCILIATION_DELAY_MS \(30000\) must be at least ATTEMPT_RECOVERY_AFTER_MS \(60000\)/,
    'a window younger than the recovery delay still has attempts recovery will settle');
  t.equal(loadConfig({ RECONCILIATION_DELAY_MS: '30000', ATTEMPT_RECOVERY_AFTER_MS: '30000' }).reconciliation.delayMs, 30_000);
});

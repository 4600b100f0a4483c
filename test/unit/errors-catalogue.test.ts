// The one error catalogue: complete in three languages, consistent, and in sync with docs/errors.md.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { ERRORS } from '../../src/errors.js';
import { replaceTable } from '../../src/errors-doc.js';

t.test('every code has a status, a type and three distinct non-empty messages', async (t) => {
  for (const [code, d] of Object.entries(ERRORS)) {
    t.match(code, /^[a-z][a-z0-9_]+$/, code);
    t.ok(d.status >= 400 && d.status < 600, code);
    t.ok(d.en && d.ru && d.az, code);
    t.equal(new Set([d.en, d.ru, d.az]).size, 3, `${code} is translated`);
    t.match(d.ru, /[а-яё]/i, `${code} ru is Cyrillic`);
    if (d.status >= 500) t.equal(d.type, 'api_error', code);
    if (d.status === 429) t.equal(d.type, 'rate_limit_error', code);
  }
});

t.test('the spec\'s known codes exist with the spec\'s statuses', async (t) => {
  t.equal(ERRORS.amount_invalid.status, 422);
  t.equal(ERRORS.idempotency_conflict.status, 409);
  t.equal(ERRORS.method_not_available.status, 422);
  t.equal(ERRORS.json_invalid.status, 400);
  t.equal(ERRORS.api_key_invalid.status, 401);
  t.equal(ERRORS.api_disabled.status, 403);
  t.ok(ERRORS.payment_not_payable && ERRORS.refund_amount_invalid && ERRORS.refund_failed);
});

t.test('docs/errors.md lists exactly the catalogue (run npm run docs:errors after a change)', async (t) => {
  const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
  t.equal(doc, replaceTable(doc));
});

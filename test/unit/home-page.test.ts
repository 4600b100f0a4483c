// GET /'s page: the demo shop is linked only when it runs; the docs are listed in the order a
// merchant's developer needs them, only files of docs/ named like docs (src/http/routes/home.ts).
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listDocs } from '../../src/http/routes/home.js';
import { renderHomePage } from '../../src/web/home-page.js';

t.test('the demo shop only when it runs', async (t) => {
  const on = renderHomePage('n0nce', { demo: true, docs: [] });
  const off = renderHomePage('n0nce', { demo: false, docs: [] });
  t.match(on, 'href="/demo"');
  t.notMatch(off, 'href="/demo"');
  for (const html of [on, off]) {
    t.match(html, 'href="/reference"');
    t.match(html, 'href="/openapi.json"');
    t.match(html, '<style nonce="n0nce">');
    t.notMatch(html, '<h2>Documentation', 'no docs section without docs');
  }
});

t.test('docs: escaped links, known ones described', async (t) => {
  const html = renderHomePage('n', { demo: false, docs: ['webhooks.md', 'x-y.md'] });
  t.match(html, '<a href="/docs/webhooks.md">webhooks.md</a> — Webhooks');
  t.match(html, '<a href="/docs/x-y.md">x-y.md</a></li>');
});

t.test('listDocs: the order of the path first, then by name; nothing else', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pe-docs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const f of ['zeta.md', 'decisions.md', 'webhooks.md', 'alpha.md', 'errors.md', 'README', 'Upper.md', '.hidden.md', 'notes.txt']) writeFileSync(path.join(dir, f), '# x');
  t.same(listDocs(dir), ['webhooks.md', 'errors.md', 'decisions.md', 'alpha.md', 'zeta.md']);
  t.same(listDocs(path.join(dir, 'missing')), [], 'no folder: no docs');
  t.ok(listDocs().includes('webhooks.md'), 'the repository\'s own docs are found from dist/');
});

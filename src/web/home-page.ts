// The page at GET /: where a developer who opens the server's address in a browser goes next (the
// API reference, the OpenAPI document, the docs, the demo shop when it runs). Pure: the http layer
// sends it with the hosted pages' headers (src/web/html.ts).
import { escapeHtml, layout } from './html.js';

export interface HomeLinks {
  /** Whether the demo merchant runs (DEMO_MERCHANT): /demo is then served. */
  demo: boolean;
  /** The docs served under /docs/ (file names, e.g. webhooks.md), in the order to list them. */
  docs: readonly string[];
}

/**
 * What each doc holds, for its link, in the order a merchant's developer needs them (the page lists
 * these first); a doc not named here follows by its file name alone.
 */
export const DOC_TITLES: Record<string, string> = {
  'webhooks.md': 'Webhooks: events, signatures, retries, a receiver',
  'errors.md': 'Error codes of both APIs',
  'retries.md': 'What every answer means for a retry',
  'sandbox.md': 'Sandbox bank: test cards, 3-D Secure, SBP, wallets, payouts',
  'operations.md': 'Operations: configuration, scaling, health, metrics',
  'decisions.md': 'Decisions where the specification is silent',
};

const CSS = `body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827;background:#f3f4f6}
main{max-width:40rem;margin:0 auto;padding:1.5rem 1rem}h1{font-size:1.5rem;margin:0 0 .5rem}h2{font-size:1.125rem;margin:1.5rem 0 .5rem}
a{color:#1d4ed8}ul{padding-left:1.25rem}li{margin:.25rem 0}code{font:.875rem ui-monospace,monospace;background:#e5e7eb;border-radius:4px;padding:0 .25rem}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}`;

export function renderHomePage(nonce: string, links: HomeLinks): string {
  const docs = links.docs.map((f) => {
    const title = DOC_TITLES[f];
    return `<li><a href="/docs/${encodeURIComponent(f)}">${escapeHtml(f)}</a>${title ? ` — ${escapeHtml(title)}` : ''}</li>`;
  }).join('');
  const body = `<main><h1>Payments engine</h1>
<p>This server answers the merchant API under <code>/api/v2</code> and the gateway API under <code>/v1</code> and <code>/v2</code>, with the hosted checkout pages.</p>
<h2>API</h2><ul>
<li><a href="/reference" id="reference">API reference</a> — both APIs, every operation and schema</li>
<li><a href="/openapi.json">OpenAPI 3.1 document</a> (JSON)</li>
<li><a href="/v2/health">Health</a></li></ul>
${links.demo ? '<h2>Try it</h2><ul><li><a href="/demo" id="demo">Demo shop</a> — pay a test order through the embedded form or the hosted page</li></ul>' : ''}
${docs ? `<h2>Documentation</h2><p>The repository's docs, as written (Markdown):</p><ul>${docs}</ul>` : ''}
</main>`;
  return layout('en', 'Payments engine', nonce, CSS, body);
}

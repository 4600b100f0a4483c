// The API reference page (GET /reference): Swagger UI (swagger-ui-dist, served by us from
// /reference/assets/) renders GET /openapi.json, both APIs in one document. Pure: the page, its
// start-up script and its headers; src/http/routes/reference.ts serves them and the assets.
// The CSP names our own origin only ('self'): no font, script, style or image from anywhere else.

/** The files of swagger-ui-dist that the page loads, with their content types. */
export const REFERENCE_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};

/**
 * The start-up script (a file of ours, so that script-src stays 'self' without 'unsafe-inline').
 * Read-only reference: no "Try it out" (the curl examples in the README are the way to call), no
 * call to the public validator service (validatorUrl null).
 */
export const REFERENCE_INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    validatorUrl: null,
    supportedSubmitMethods: [],
    defaultModelsExpandDepth: 0,
    docExpansion: 'list',
    tryItOutEnabled: false
  });
});
`;

/** Our own few rules: the line of links above the reference, in the renderer's font. */
export const REFERENCE_PAGE_CSS = `body{margin:0}nav{font:14px/1.5 sans-serif;max-width:1460px;margin:0 auto;padding:12px 20px}
nav a{color:#1d4ed8}
`;

export const REFERENCE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>API reference: merchant API and gateway API</title>
<link rel="stylesheet" href="/reference/assets/swagger-ui.css"><link rel="stylesheet" href="/reference/page.css"></head>
<body><nav><a href="/">← Payments engine</a> · <a href="/openapi.json">OpenAPI document (JSON)</a></nav>
<div id="reference"><noscript>The reference needs JavaScript; the document itself is at <a href="/openapi.json">/openapi.json</a>.</noscript></div>
<script src="/reference/assets/swagger-ui-bundle.js"></script><script src="/reference/init.js"></script></body></html>
`;

/**
 * Our origin only. Swagger UI sets element styles from script (allowed) and shows its icons as
 * inline SVG and data: images; it fetches the document with connect-src 'self'.
 */
export function referenceHeaders(): [string, string][] {
  return [
    ['Content-Security-Policy', "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"],
    ['X-Content-Type-Options', 'nosniff'],
    ['Referrer-Policy', 'no-referrer'],
    ['X-Frame-Options', 'DENY'],
    ['Cache-Control', 'no-cache'],
  ];
}

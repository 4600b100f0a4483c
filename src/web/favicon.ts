// The hosted pages' icon: a card in the accent colour, as SVG (no binary to keep). Served at
// /favicon.svg, named by every page's <link rel="icon">, and at /favicon.ico for browsers and tools
// that ask there without reading the page.
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="2" y="6" width="28" height="20" rx="4" fill="#1d4ed8"/><rect x="2" y="11" width="28" height="4" fill="#111827"/><rect x="6" y="19" width="8" height="3" rx="1" fill="#fff"/></svg>`;

export const FAVICON_PATH = '/favicon.svg';

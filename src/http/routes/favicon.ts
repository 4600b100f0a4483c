// GET /favicon.svg and /favicon.ico: the hosted pages' icon (src/web/favicon.ts), cacheable for a day.
import { FAVICON_PATH, FAVICON_SVG } from '../../web/favicon.js';
import { send, type Ctx } from '../context.js';
import type { Route } from '../route.js';

function favicon(ctx: Ctx): void {
  send(ctx, 200, FAVICON_SVG, 'image/svg+xml', [['Cache-Control', 'public, max-age=86400']]);
}

export const faviconRoutes: Route[] = [
  { method: 'GET', path: FAVICON_PATH, api: 'web', auth: 'none', handler: favicon },
  { method: 'GET', path: '/favicon.ico', api: 'web', auth: 'none', handler: favicon },
];

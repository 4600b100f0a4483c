// The API reference: GET /reference (src/web/reference-page.ts), its start-up script, its stylesheet and the
// swagger-ui-dist files it loads, read from the installed package once and kept in memory.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fail } from '../../errors.js';
import { REFERENCE_ASSETS, REFERENCE_INIT_JS, REFERENCE_PAGE, REFERENCE_PAGE_CSS, referenceHeaders } from '../../web/reference-page.js';
import { send, type Ctx } from '../context.js';
import { sendFailure } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

const DIST = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSET_HEADERS: [string, string][] = [['Cache-Control', 'public, max-age=3600'], ['X-Content-Type-Options', 'nosniff']];

function page(ctx: Ctx): void {
  send(ctx, 200, REFERENCE_PAGE, 'text/html; charset=utf-8', referenceHeaders());
}

function init(ctx: Ctx): void {
  send(ctx, 200, REFERENCE_INIT_JS, 'text/javascript; charset=utf-8', ASSET_HEADERS);
}

function css(ctx: Ctx): void {
  send(ctx, 200, REFERENCE_PAGE_CSS, 'text/css; charset=utf-8', ASSET_HEADERS);
}

const assets = new Map<string, Promise<string>>();
async function asset(ctx: Ctx, s: Services): Promise<void> {
  const name = ctx.params[0];
  const type = Object.hasOwn(REFERENCE_ASSETS, name) ? REFERENCE_ASSETS[name] : undefined;
  if (!type) return sendFailure(ctx, fail('route_not_found', null, `${ctx.method} ${ctx.path.slice(0, 200)}`));
  let text = assets.get(name);
  if (!text) {
    text = readFile(path.join(DIST, name), 'utf8');
    assets.set(name, text);
  }
  try {
    send(ctx, 200, await text, type, ASSET_HEADERS);
  } catch (err) {
    assets.delete(name); // a later request tries again
    s.log.error({ err, asset: name }, 'an API reference file could not be read from swagger-ui-dist');
    sendFailure(ctx, fail('internal_error'));
  }
}

export const referenceRoutes: Route[] = [
  { method: 'GET', path: '/reference', api: 'gateway', auth: 'none', handler: page },
  { method: 'GET', path: '/reference/init.js', api: 'gateway', auth: 'none', handler: init },
  { method: 'GET', path: '/reference/page.css', api: 'gateway', auth: 'none', handler: css },
  { method: 'GET', path: '/reference/assets/:file', api: 'gateway', auth: 'none', handler: asset },
];

// GET / (src/web/home-page.ts: where to go next) and GET /docs/{file}: the repository's docs/*.md,
// served as written (Markdown as text/plain, which every browser shows), read once and kept.
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { fail } from '../../errors.js';
import { newNonce } from '../../web/html.js';
import { DOC_TITLES, renderHomePage } from '../../web/home-page.js';
import { send, type Ctx } from '../context.js';
import { sendHtml } from '../html-reply.js';
import { sendFailure } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

/** dist/src/http/routes/ → the package's docs/ (copied into the image beside dist/, see Dockerfile). */
const DOCS_DIR = fileURLToPath(new URL('../../../../docs/', import.meta.url));
const DOC_NAME = /^[a-z0-9][a-z0-9-]*\.md$/;
/** The first docs of the list, the path a merchant's developer takes; the rest follow by name. */
const FIRST = Object.keys(DOC_TITLES);

let docList: string[] | null = null;
/** The docs present (none when the folder is not there: the page then lists none). */
export function listDocs(dir = DOCS_DIR): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => DOC_NAME.test(n));
  } catch {
    return [];
  }
  const rank = (n: string) => (FIRST.includes(n) ? FIRST.indexOf(n) : FIRST.length);
  return names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

function home(ctx: Ctx, s: Services): void {
  docList ??= listDocs();
  const nonce = newNonce();
  sendHtml(ctx, 200, renderHomePage(nonce, { demo: s.config.demoMerchant, docs: docList }), nonce);
}

const docText = new Map<string, string>();
async function doc(ctx: Ctx, s: Services): Promise<void> {
  docList ??= listDocs();
  const name = ctx.params[0];
  if (!docList.includes(name)) return sendFailure(ctx, fail('route_not_found', null, `${ctx.method} ${ctx.path.slice(0, 200)}`));
  let text = docText.get(name);
  if (text === undefined) {
    try {
      text = await readFile(DOCS_DIR + name, 'utf8');
    } catch (err) {
      s.log.error({ err, doc: name }, 'a listed doc could not be read');
      return sendFailure(ctx, fail('internal_error'));
    }
    docText.set(name, text);
  }
  send(ctx, 200, text, 'text/plain; charset=utf-8', [
    ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
    ['X-Content-Type-Options', 'nosniff'],
    ['Cache-Control', 'no-cache'],
  ]);
}

export const homeRoutes: Route[] = [
  { method: 'GET', path: '/', api: 'gateway', auth: 'none', handler: home },
  { method: 'GET', path: '/docs/:file', api: 'gateway', auth: 'none', handler: doc },
];

// Sending the hosted pages (HTML with the security headers of src/web/html.ts) and redirects.
import { choosePageLang, htmlHeaders } from '../web/html.js';
import type { PageLang } from '../web/i18n.js';
import { send, type Ctx } from './context.js';

/** `close` ends the connection after the answer (a body that was refused unread). */
export function sendHtml(ctx: Ctx, status: number, html: string, nonce: string, close = false): void {
  send(ctx, status, html, 'text/html; charset=utf-8', htmlHeaders(nonce), close);
}

/** A page that the listed origins may frame (frame-ancestors); none when the list is empty. */
export function sendFramableHtml(ctx: Ctx, status: number, html: string, nonce: string, frameAncestors: readonly string[], imgOrigin: string | null = null): void {
  send(ctx, status, html, 'text/html; charset=utf-8', htmlHeaders(nonce, frameAncestors, imgOrigin));
}

export function redirect(ctx: Ctx, location: string): void {
  send(ctx, 302, '', 'text/plain; charset=utf-8', [['Location', location], ['Cache-Control', 'no-store']]);
}

/** The page language: ?lang= first, then the payment's locale, then Accept-Language. */
export const pageLang = (ctx: Ctx, locale: string | null): PageLang =>
  choosePageLang(new URLSearchParams(ctx.query).get('lang'), locale, ctx.lang);

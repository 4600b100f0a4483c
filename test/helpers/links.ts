// Shared steps of the payment link tests: create a link, pay it through its page's form.
import type { TestServer } from './server.js';

export async function newLink(s: TestServer, key: string, body: Record<string, unknown> = {}): Promise<{ id: string; url: string }> {
  const r = await s.request('POST', '/api/v2/links', { key, body });
  if (r.status !== 201) throw new Error(`link create failed: ${r.text}`);
  return { id: r.body.id, url: r.body.url };
}

/** POSTs the link page's form as a browser would; the payment id when it continued to /pay/{id}. */
export async function payLink(base: string, id: string, form: Record<string, string> = {}): Promise<{ status: number; paymentId: string | null; html: string }> {
  const r = await fetch(`${base}/link/${id}`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const loc = r.headers.get('location');
  const m = loc ? /^\/pay\/(EXZ-[0-9A-Z-]+)$/.exec(loc) : null;
  return { status: r.status, paymentId: m ? m[1] : null, html: await r.text() };
}

/** The state the link page announces (data-state of #link-state), or null when it offers to pay. */
export const pageState = (html: string): string | null => /id="link-state" data-state="([a-z_]+)"/.exec(html)?.[1] ?? null;

/** Whether the link page shows the printable QR code of its URL (static links). */
export const hasQrCode = (html: string): boolean => /id="link-qr" src="data:image\/svg\+xml;base64,/.test(html);

/** Whether the link page asks the payer for the sum (a link without an amount). */
export const asksForAmount = (html: string): boolean => /id="payer-amount"/.test(html);

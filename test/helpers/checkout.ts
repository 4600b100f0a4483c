// Shared steps of the checkout tests: a merchant that takes RUB, a payment, a card.
import type { TestServer } from './server.js';

export const CARDS = {
  success: '4242424242424242', mastercard: '5555555555554444', mir: '2200000000000004',
  challenge: '4000000000003220', challengeThenDecline: '4000008400001629', insufficient: '4000000000009995',
  expired: '4000000000000069', declined: '4000000000000002', limit: '4000000000006975',
};
export const CVC = '731';

export const card = (number: string, extra: Record<string, unknown> = {}) => ({ number, exp_month: '12', exp_year: '34', cvc: CVC, ...extra });

export async function newPayment(s: TestServer, key: string, body: Record<string, unknown> = {}): Promise<string> {
  const r = await s.request('POST', '/api/v2/payments', { key, body: { amount: 4900, currency: 'RUB', ...body } });
  if (r.status !== 201) throw new Error(`payment create failed: ${r.text}`);
  return r.body.id as string;
}

/** Follows a 3-D Secure challenge the way the ACS page's form does. */
export async function answerChallenge(s: TestServer, id: string, creq: string, answer: 'Y' | 'N'): Promise<number> {
  const ref = JSON.parse(Buffer.from(creq, 'base64url').toString()).acsTransID as string;
  const r = await fetch(`${s.url}/sandbox/3ds/${id}`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ref, answer }).toString(),
  });
  return r.status;
}

export async function answerPage(s: TestServer, kind: 'sbp' | 'wallet', id: string, ref: string, answer: 'approve' | 'decline'): Promise<Response> {
  return fetch(`${s.url}/sandbox/${kind}/${id}`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ref, answer }).toString(),
  });
}

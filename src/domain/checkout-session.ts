// A gateway checkout session (`cs_…`): a payment row of source `gateway` with the presentation and
// notification options of CreateCheckoutRequest. Pure rules of the create request live here.
import { isReturnUrlAllowed } from './address.js';
import type { MethodCode } from './methods.js';

export interface GatewaySession {
  webhookUrl: string | null;
  successUrl: string | null;
  cancelUrl: string | null;
  /** settings.payment_methods: the whitelist shown on the page (a subset of the effective catalog), else null. */
  paymentMethods: MethodCode[] | null;
  buttonText: string | null;
  /** settings.auto_return: seconds before the page returns to success_url; 0 stays on the outcome screen. */
  autoReturn: number | null;
  initialMethod: MethodCode | null;
  /** Direct payments (POST /v2/payments) with capture_method manual: the bank's yes authorizes, capture takes. */
  captureMethod?: 'automatic' | 'manual';
}

/** A session's options when none is given: what a stored session's absent field reads as. */
export const NO_SESSION_OPTIONS: GatewaySession = {
  webhookUrl: null, successUrl: null, cancelUrl: null, paymentMethods: null, buttonText: null, autoReturn: null, initialMethod: null,
};

/** Sessions live this long unless configured (SESSION_WINDOW_SECONDS). */
export const DEFAULT_SESSION_WINDOW_SECONDS = 24 * 3600;

/** The page's default return delay after a success, in seconds. */
export const DEFAULT_AUTO_RETURN_SECONDS = 5;

export interface SessionUrls { success_url?: string; cancel_url?: string; settings?: { success_url?: string; cancel_url?: string } }

/**
 * The top-level URL wins over the legacy settings one; the field named in a refusal is the one given.
 * Spec: "string uri". Live mode takes public https URLs; test mode (`livemode` false) also http and
 * loopback hosts, so that a developer's shop on localhost gets its customer back.
 */
export function sessionUrls(b: SessionUrls, livemode: boolean): { ok: true; successUrl: string | null; cancelUrl: string | null } | { ok: false; param: string } {
  const pick = (name: 'success_url' | 'cancel_url'): [string | null, string] =>
    b[name] !== undefined ? [b[name]!, name] : b.settings?.[name] !== undefined ? [b.settings[name]!, `settings.${name}`] : [null, name];
  const [successUrl, sp] = pick('success_url');
  const [cancelUrl, cp] = pick('cancel_url');
  if (successUrl !== null && !isReturnUrlAllowed(successUrl, !livemode)) return { ok: false, param: sp };
  if (cancelUrl !== null && !isReturnUrlAllowed(cancelUrl, !livemode)) return { ok: false, param: cp };
  return { ok: true, successUrl, cancelUrl };
}

/** Where the page sends the customer after this outcome: success_url after a success, cancel_url otherwise. */
export function sessionReturnUrl(s: GatewaySession, paid: boolean): string | null {
  return paid ? s.successUrl : s.cancelUrl;
}

// Payment method codes of the checkout, how each is shown, and the next_action shapes a browser
// acts on. Pure.

export const METHOD_CODES = ['card', 'sbp', 'sberpay', 'tpay', 'yoomoney', 'recurrent', 'apple_pay', 'google_pay'] as const;
export type MethodCode = (typeof METHOD_CODES)[number];
export const isMethodCode = (v: unknown): v is MethodCode => typeof v === 'string' && (METHOD_CODES as readonly string[]).includes(v);

export const RENDER_MODES = ['inline_form', 'qr_code', 'redirect', 'modal', 'bottom_sheet', 'deeplink'] as const;
export type RenderMode = (typeof RENDER_MODES)[number];

/** Methods that pay through a wallet page the customer is redirected to. */
export const REDIRECT_WALLETS = ['sberpay', 'tpay', 'yoomoney'] as const;
export type RedirectWallet = (typeof REDIRECT_WALLETS)[number];
export const isRedirectWallet = (m: MethodCode): m is RedirectWallet => (REDIRECT_WALLETS as readonly string[]).includes(m);

/** Methods whose token comes from a device wallet (Apple Pay, Google Pay). */
export const TOKEN_WALLETS = ['apple_pay', 'google_pay'] as const;
export const isTokenWallet = (m: MethodCode): boolean => (TOKEN_WALLETS as readonly string[]).includes(m);

export type NextAction =
  | { type: 'show_qr'; qr_image_url: string | null; qr_raw_payload: string | null; deeplink: string | null }
  | { type: 'redirect'; redirect_url: string }
  | { type: 'three_ds_challenge'; acs_url: string; creq: string }
  | { type: 'poll'; hint: string };

/**
 * The merchant API's payment resource knows two methods (card, sbp). Every other checkout method is
 * recorded there as card, the rail it settles on, while the checkout keeps the exact code.
 */
export const merchantMethodOf = (m: MethodCode): 'card' | 'sbp' => (m === 'sbp' ? 'sbp' : 'card');

/** E.164: a plus, a non-zero digit, 8 to 15 digits in all. */
export const isE164 = (v: string): boolean => /^\+[1-9][0-9]{7,14}$/.test(v);

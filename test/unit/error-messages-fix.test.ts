// Every error message says what to do about it. The table names, for every code of the catalogue,
// the part of its English message that is the fix (or the rule to meet, for a value refused as
// malformed): a code added without an entry fails, and so does a message reworded into one that
// only says what went wrong. Where another part of the system owns a message's exact words (the
// gateway's field messages, the embed allowlist), the entry asks for a fix of any wording.
import t from 'tap';
import { ERRORS, type ErrorCode } from '../../src/errors.js';

/** A fix of any wording: an instruction, or the rule the value must meet. */
const ANY_FIX = /\b(must|use|send|check|choose|retry|try|wait|ask|create|add|remove|restore|resume|reload|pass|pay|enter|leave|see|only)\b/i;

const FIX: Record<ErrorCode, RegExp> = {
  json_invalid: /send a JSON object with Content-Type: application\/json/,
  body_invalid: /must be a JSON object/,
  body_too_large: /send a smaller body/,
  json_too_deep: /at most 32 levels/,
  url_invalid: /percent-encode them or leave them out/,
  request_malformed: /send one Content-Length, or Transfer-Encoding alone/,
  parameter_unknown: /remove the one named in param/,
  parameter_invalid: /correct the one named in param/,
  parameter_missing: /add the one named in param/,
  amount_invalid: /must be a positive integer in minor units/,
  currency_invalid: /must be a three-letter ISO 4217 code/,
  currency_not_enabled: /use one of the account's currencies .*or ask the operator/,
  description_invalid: /must be a string of at most 200/,
  order_id_invalid: /must be a non-empty string/,
  metadata_invalid: /must map at most 20 keys/,
  locale_invalid: /must be one of az, ru, en/,
  method_invalid: /must be card or sbp/,
  method_not_available: /choose one of the methods it offers/,
  return_url_invalid: /must be a public https URL/,
  customer_invalid: /correct the field named in param/,
  limit_invalid: /must be an integer from 1 to 100/,
  cursor_invalid: /pass the id of the last item of the previous page/,
  date_invalid: /must look like YYYY-MM-DD/,
  status_invalid: /must be one of the payment statuses/,
  idempotency_key_invalid: /must be 1 to 255 printable characters/,
  idempotency_conflict: /send a new key for a different request/,
  idempotency_key_in_use: /retry shortly/,
  authentication_required: /Send it as Authorization: Bearer <key>/,
  api_key_invalid: /check that the whole key was sent, or issue a new one/,
  api_key_wrong_api: /send svc_ keys to the merchant API .*sk_ and rk_ keys to the gateway API/,
  api_disabled: /ask the operator to enable it/,
  permission_denied: /use a key that holds the permission/,
  admin_unauthorized: /send the server's ADMIN_TOKEN as Authorization: Bearer/,
  route_not_found: /check the path: the merchant API is under \/api\/v2, the gateway API under \/v2/,
  method_not_allowed: /use one of those in the Allow header/,
  payment_not_found: /check the id, and that the key's mode/,
  merchant_not_found: /check the merchant id/,
  api_key_not_found: /check the key id/,
  payment_not_payable: /GET the payment to see what it allows/,
  payment_not_refundable: /check the payment's status and refunded_amount/,
  refund_amount_invalid: /from 1 to what is left to refund .*leave amount out to refund all/,
  refund_failed: /A new attempt needs a new Idempotency-Key/,
  refund_in_progress: /retry shortly/,
  refund_not_supported: /return the money to the customer outside this service/,
  refund_reason_invalid: /must be a string of at most 500/,
  allowed_domain_invalid: /must list at most 20 site origins/,
  checkout_closed: /create a new payment/,
  checkout_action_stale: /reload the payment page/,
  origin_not_allowed: /add the origin to allowed_domains/,
  card_data_not_allowed: /use the hosted checkout, the widget or a saved card token/,
  payment_method_details_missing: /card for card, token for token, wallet for wallet/,
  payment_not_capturable: /Only an authorized, uncaptured payment/,
  capture_amount_invalid: /must be a positive integer in minor units, at most the authorized amount/,
  payment_not_cancellable: /Only an authorized, uncaptured payment/,
  capture_failed: /capture again or cancel it/,
  cancel_failed: /try the cancel again/,
  checkout_not_cancellable: /can be cancelled once that attempt ends/,
  checkout_session_not_found: /check the id, and that the key's mode/,
  test_mode_invalid: /must match the key/,
  settings_invalid: /see the field and the rule it breaks/,
  payment_attempt_in_progress: /wait for its outcome/,
  payment_attempt_interrupted: /can be tried again/,
  method_code_invalid: /must be one of card, sbp/,
  card_number_invalid: ANY_FIX,
  card_expiry_invalid: ANY_FIX,
  card_cvc_invalid: ANY_FIX,
  card_holder_invalid: /no digits and no < or >: enter it as printed on the card/,
  phone_invalid: /must be in international E\.164 format/,
  email_invalid: ANY_FIX,
  sbp_member_unknown: /choose another bank/,
  sbp_member_id_invalid: /must be the 12-digit NSPK participant id/,
  sbp_member_not_found: /check it against the SBP bank list/,
  saved_payment_method_not_found: /check the id and the customer, or pay with the card's details/,
  payment_token_invalid: /needs a payment_token or payment_data/,
  test_card_in_live_mode: /use a test key to pay with a test card/,
  connector_not_configured: /use test mode until the operator configures one/,
  link_not_found: /check the link's id/,
  link_inactive: /ask the merchant for a new link/,
  link_expired: /ask the merchant for a new link/,
  link_exhausted: /ask the merchant for a new link/,
  link_busy: /try again later/,
  link_amount_required: /needs a fixed amount/,
  link_type_invalid: /must be dynamic or static/,
  max_uses_invalid: /must be an integer from 1 to 1000000/,
  expires_at_invalid: /must be an RFC 3339 time in the future/,
  // Only ever the head of the gateway's answer: the specific message (with its fix) follows it.
  validation_error: /./,
  publishable_key_not_allowed: /use a secret or restricted key on your server/,
  channel_forbidden: /use a key of that channel, or a key for the whole account/,
  channel_not_found: /check the channel's id or slug/,
  channel_is_default: /promote another channel to default first/,
  channel_status_conflict: /GET the channel to see its status/,
  channel_in_use: /see error\.reasons, or delete it without hard/,
  channel_slug_taken: /choose another slug/,
  channel_paused: /resume it, or use another channel/,
  channel_deleted: /restore it first/,
  rate_limited: /retry after the time in Retry-After/,
  webhook_url_invalid: /must be an http\(s\) URL of a public host/,
  webhook_settings_not_found: /create them first with PUT \/webhook-settings/,
  test_clock_not_found: /check the clock's id/,
  test_clock_live_mode: /use a test key, and create live objects without test_clock/,
  test_clock_advancing: /wait until its status is ready, then try again/,
  test_clock_time_invalid: /a clock only moves forward, at most 60 days per advance/,
  reconciliation_run_not_found: /check the run id against GET \/internal\/reconciliation\/runs/,
  reconciliation_difference_not_found: /check the difference id against GET \/internal\/reconciliation\/differences/,
  sandbox_operation_not_found: /check the key \(a connector attempt id/,
  event_not_found: /check the event id/,
  payout_destination_invalid: /type must be card, iban or sbp/,
  iban_invalid: ANY_FIX,
  bic_invalid: ANY_FIX,
  sbp_member_invalid: /must be 12 digits and name an active bank/,
  insufficient_balance: /Pay out at most the available amount/,
  payout_not_found: /check the payout's id/,
  outcome_unknown: /retry it with the same Idempotency-Key/,
  service_unavailable: /retry shortly/,
  deadline_exceeded: /retry with the same Idempotency-Key/,
  internal_error: /can be retried/,
};

t.test('the table covers exactly the catalogue', async (t) => {
  t.same(Object.keys(FIX).sort(), Object.keys(ERRORS).sort());
});

t.test('every English message names its fix', async (t) => {
  for (const [code, re] of Object.entries(FIX) as [ErrorCode, RegExp][]) t.match(ERRORS[code].en, re, code);
});

t.test('a message that names a fix in English has one in ru and az too (more than a statement of the fault)', async (t) => {
  // The fix follows the fault after "; " or ". " in English; the translations keep that shape.
  for (const [code, d] of Object.entries(ERRORS)) {
    if (!/[;:] |\. [A-Z]/.test(d.en)) continue;
    for (const lang of ['ru', 'az'] as const) t.match(d[lang], /[;:—] |\. \S/, `${code} ${lang}: ${d[lang]}`);
  }
});

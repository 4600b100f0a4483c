// The one error catalogue. Every stable code the engine answers with, its HTTP status, the merchant
// API's error type, whether a retry may succeed, and its message in en, ru and az.
// A code, once shipped, is never reused for another meaning; retire it instead (retired: true).

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'rate_limit_error'
  | 'api_error';

export type Lang = 'en' | 'ru' | 'az';

export interface ErrorDef {
  status: number;
  type: ErrorType;
  retryable: boolean;
  en: string;
  ru: string;
  az: string;
}

const def = (status: number, type: ErrorType, retryable: boolean, en: string, ru: string, az: string): ErrorDef =>
  ({ status, type, retryable, en, ru, az });

const IR = 'invalid_request_error';

export const ERRORS = {
  json_invalid: def(400, IR, false,
    'The request body is not valid JSON.',
    'Тело запроса не является корректным JSON.',
    'Sorğunun gövdəsi düzgün JSON deyil.'),
  body_invalid: def(400, IR, false,
    'The request body must be a JSON object.',
    'Тело запроса должно быть JSON-объектом.',
    'Sorğunun gövdəsi JSON obyekti olmalıdır.'),
  body_too_large: def(413, IR, false,
    'The request body is larger than the allowed limit.',
    'Тело запроса превышает допустимый размер.',
    'Sorğunun gövdəsi icazə verilən həddən böyükdür.'),
  parameter_unknown: def(422, IR, false,
    'The request contains a parameter that is not recognised.',
    'Запрос содержит неизвестный параметр.',
    'Sorğuda tanınmayan parametr var.'),
  parameter_invalid: def(422, IR, false,
    'A parameter has a value that is not acceptable.',
    'Значение параметра недопустимо.',
    'Parametrin dəyəri qəbul edilmir.'),
  parameter_missing: def(422, IR, false,
    'A required parameter is missing.',
    'Отсутствует обязательный параметр.',
    'Tələb olunan parametr yoxdur.'),
  amount_invalid: def(422, IR, false,
    'The amount must be a positive integer in minor units, at most 9999999999.',
    'Сумма должна быть положительным целым числом в минимальных единицах валюты, не более 9999999999.',
    'Məbləğ valyutanın kiçik vahidlərində müsbət tam ədəd olmalıdır, ən çox 9999999999.'),
  currency_invalid: def(422, IR, false,
    'The currency must be a three-letter ISO 4217 code.',
    'Валюта должна быть трёхбуквенным кодом ISO 4217.',
    'Valyuta üç hərfli ISO 4217 kodu olmalıdır.'),
  currency_not_enabled: def(422, IR, false,
    'This currency is not enabled for your account.',
    'Эта валюта не подключена для вашего аккаунта.',
    'Bu valyuta hesabınız üçün aktiv deyil.'),
  description_invalid: def(422, IR, false,
    'The description must be a string of at most 200 characters.',
    'Описание должно быть строкой не длиннее 200 символов.',
    'Təsvir ən çox 200 simvoldan ibarət sətir olmalıdır.'),
  order_id_invalid: def(422, IR, false,
    'The order_id must be a non-empty string of at most 128 characters.',
    'order_id должен быть непустой строкой не длиннее 128 символов.',
    'order_id ən çox 128 simvoldan ibarət boş olmayan sətir olmalıdır.'),
  metadata_invalid: def(422, IR, false,
    'Metadata must map at most 20 keys to string values, 4 KB in total.',
    'Metadata должна содержать не более 20 ключей со строковыми значениями, всего до 4 КБ.',
    'Metadata ən çox 20 açar və sətir dəyərlərdən ibarət olmalıdır, cəmi 4 KB-a qədər.'),
  locale_invalid: def(422, IR, false,
    'The locale must be one of az, ru, en.',
    'Язык должен быть одним из: az, ru, en.',
    'Dil az, ru, en-dən biri olmalıdır.'),
  method_invalid: def(422, IR, false,
    'The method must be card or sbp.',
    'Способ оплаты должен быть card или sbp.',
    'Ödəniş üsulu card və ya sbp olmalıdır.'),
  method_not_available: def(422, IR, false,
    'This payment method is not available for this payment; sbp works only with RUB.',
    'Этот способ оплаты недоступен для данного платежа; sbp работает только с RUB.',
    'Bu ödəniş üsulu bu ödəniş üçün mövcud deyil; sbp yalnız RUB ilə işləyir.'),
  return_url_invalid: def(422, IR, false,
    'The return_url must be a public https URL.',
    'return_url должен быть публичным https-адресом.',
    'return_url ictimai https ünvanı olmalıdır.'),
  customer_invalid: def(422, IR, false,
    'A customer field has a value that is not acceptable.',
    'Поле покупателя содержит недопустимое значение.',
    'Müştəri sahəsinin dəyəri qəbul edilmir.'),
  limit_invalid: def(422, IR, false,
    'The limit must be an integer from 1 to 100.',
    'Параметр limit должен быть целым числом от 1 до 100.',
    'limit 1-dən 100-ə qədər tam ədəd olmalıdır.'),
  cursor_invalid: def(422, IR, false,
    'The starting_after cursor does not name a payment of this account.',
    'Курсор starting_after не указывает на платёж этого аккаунта.',
    'starting_after kursoru bu hesabın ödənişini göstərmir.'),
  date_invalid: def(422, IR, false,
    'Dates must look like YYYY-MM-DD or YYYY-MM-DD HH:MM (UTC).',
    'Даты должны быть в формате YYYY-MM-DD или YYYY-MM-DD HH:MM (UTC).',
    'Tarixlər YYYY-MM-DD və ya YYYY-MM-DD HH:MM (UTC) formatında olmalıdır.'),
  status_invalid: def(422, IR, false,
    'The status filter must be one of the payment statuses.',
    'Фильтр status должен быть одним из статусов платежа.',
    'status filtri ödəniş statuslarından biri olmalıdır.'),
  idempotency_key_invalid: def(400, IR, false,
    'The Idempotency-Key header must be 1 to 255 printable characters.',
    'Заголовок Idempotency-Key должен содержать от 1 до 255 печатных символов.',
    'Idempotency-Key başlığı 1-dən 255-ə qədər çap olunan simvol olmalıdır.'),
  idempotency_conflict: def(409, IR, false,
    'This Idempotency-Key was already used with a different request body.',
    'Этот Idempotency-Key уже использован с другим телом запроса.',
    'Bu Idempotency-Key artıq başqa sorğu gövdəsi ilə istifadə olunub.'),
  idempotency_key_in_use: def(409, IR, true,
    'A request with this Idempotency-Key is still being processed; retry shortly.',
    'Запрос с этим Idempotency-Key ещё обрабатывается; повторите чуть позже.',
    'Bu Idempotency-Key ilə sorğu hələ emal olunur; bir az sonra təkrarlayın.'),
  authentication_required: def(401, 'authentication_error', false,
    'No API key provided. Send it as Authorization: Bearer <key>.',
    'API-ключ не передан. Отправьте его в заголовке Authorization: Bearer <key>.',
    'API açarı göndərilməyib. Onu Authorization: Bearer <key> başlığında göndərin.'),
  api_key_invalid: def(401, 'authentication_error', false,
    'The API key is invalid or has been revoked.',
    'API-ключ недействителен или отозван.',
    'API açarı etibarsızdır və ya ləğv edilib.'),
  api_disabled: def(403, 'authentication_error', false,
    'API access is disabled for this merchant.',
    'Доступ к API отключён для этого мерчанта.',
    'Bu tacir üçün API girişi söndürülüb.'),
  permission_denied: def(403, 'authentication_error', false,
    'This key is not allowed to perform this request.',
    'Этому ключу запрещено выполнять этот запрос.',
    'Bu açarın bu sorğunu yerinə yetirməyə icazəsi yoxdur.'),
  admin_unauthorized: def(401, 'authentication_error', false,
    'The operator token is missing or wrong.',
    'Токен оператора отсутствует или неверен.',
    'Operator tokeni yoxdur və ya səhvdir.'),
  route_not_found: def(404, IR, false,
    'No such endpoint.',
    'Такого адреса API нет.',
    'Belə API ünvanı yoxdur.'),
  method_not_allowed: def(405, IR, false,
    'This endpoint does not accept this HTTP method.',
    'Этот адрес не принимает данный HTTP-метод.',
    'Bu ünvan bu HTTP metodunu qəbul etmir.'),
  payment_not_found: def(404, IR, false,
    'No such payment.',
    'Платёж не найден.',
    'Belə ödəniş tapılmadı.'),
  merchant_not_found: def(404, IR, false,
    'No such merchant.',
    'Мерчант не найден.',
    'Belə tacir tapılmadı.'),
  api_key_not_found: def(404, IR, false,
    'No such API key.',
    'API-ключ не найден.',
    'Belə API açarı tapılmadı.'),
  payment_not_payable: def(409, IR, false,
    'The payment is not in a state that allows this operation.',
    'Платёж находится в состоянии, которое не допускает эту операцию.',
    'Ödəniş bu əməliyyata icazə verən vəziyyətdə deyil.'),
  refund_amount_invalid: def(422, IR, false,
    'The refund amount exceeds what is left to refund.',
    'Сумма возврата превышает остаток, доступный для возврата.',
    'Geri qaytarma məbləği qaytarıla bilən qalıqdan çoxdur.'),
  refund_failed: def(502, 'api_error', false,
    'The bank rejected the refund.',
    'Банк отклонил возврат.',
    'Bank geri qaytarmanı rədd etdi.'),
  // Embedded form (issue 10).
  allowed_domain_invalid: def(422, IR, false,
    'allowed_domains must list at most 20 site origins like https://shop.example: scheme, host and optional port only, https unless the host is localhost; no path, wildcard or *.',
    'allowed_domains должен содержать не более 20 источников вида https://shop.example: схема, хост и необязательный порт, https для всех хостов кроме localhost; без пути, масок и *.',
    'allowed_domains ən çox 20 mənbədən ibarət olmalıdır, məsələn https://shop.example: sxem, host və istəyə bağlı port; localhost-dan başqa hər yerdə https; yol, maska və * olmadan.'),
  // Hosted checkout and the sandbox bank.
  checkout_closed: def(409, IR, false,
    'This payment is already finished and cannot be paid again.',
    'Этот платёж уже завершён, оплатить его повторно нельзя.',
    'Bu ödəniş artıq başa çatıb, onu yenidən ödəmək olmaz.'),
  checkout_action_stale: def(409, IR, false,
    'This step belongs to a payment attempt that is no longer the current one.',
    'Этот шаг относится к попытке оплаты, которая уже не актуальна.',
    'Bu addım artıq aktual olmayan ödəniş cəhdinə aiddir.'),
  payment_attempt_in_progress: def(409, IR, true,
    'Another attempt to pay this payment is in progress; wait for its outcome (GET the status) before trying again.',
    'Другая попытка оплаты этого платежа ещё выполняется; дождитесь её результата (запросите статус), прежде чем пробовать снова.',
    'Bu ödənişin başqa ödəmə cəhdi hələ davam edir; yenidən cəhd etməzdən əvvəl onun nəticəsini gözləyin (statusu sorğulayın).'),
  payment_attempt_interrupted: def(409, IR, true,
    'The payment attempt was interrupted before the bank received it; nothing was charged, and the payment can be tried again.',
    'Попытка оплаты прервалась до того, как банк её получил; деньги не списаны, платёж можно повторить.',
    'Ödəmə cəhdi bank onu almazdan əvvəl kəsildi; heç nə tutulmayıb, ödənişi yenidən etmək olar.'),
  method_code_invalid: def(422, IR, false,
    'The method_code must be one of card, sbp, sberpay, tpay, yoomoney, recurrent, apple_pay, google_pay.',
    'method_code должен быть одним из: card, sbp, sberpay, tpay, yoomoney, recurrent, apple_pay, google_pay.',
    'method_code bunlardan biri olmalıdır: card, sbp, sberpay, tpay, yoomoney, recurrent, apple_pay, google_pay.'),
  card_number_invalid: def(422, IR, false,
    'The card number is not valid.',
    'Номер карты указан неверно.',
    'Kart nömrəsi düzgün deyil.'),
  card_expiry_invalid: def(422, IR, false,
    'The card expiry date is not valid or has passed.',
    'Срок действия карты указан неверно или истёк.',
    'Kartın etibarlılıq müddəti düzgün deyil və ya bitib.'),
  card_cvc_invalid: def(422, IR, false,
    'The card security code (CVC) is not valid.',
    'Код безопасности карты (CVC) указан неверно.',
    'Kartın təhlükəsizlik kodu (CVC) düzgün deyil.'),
  card_holder_invalid: def(422, IR, false,
    'The cardholder name must be at most 100 letters.',
    'Имя держателя карты должно содержать не более 100 букв.',
    'Kart sahibinin adı ən çox 100 hərf olmalıdır.'),
  phone_invalid: def(422, IR, false,
    'The phone number must be in international E.164 format, e.g. +79001234567.',
    'Номер телефона должен быть в международном формате E.164, например +79001234567.',
    'Telefon nömrəsi beynəlxalq E.164 formatında olmalıdır, məsələn +79001234567.'),
  email_invalid: def(422, IR, false,
    'The e-mail address is not valid.',
    'Адрес электронной почты указан неверно.',
    'E-poçt ünvanı düzgün deyil.'),
  sbp_member_unknown: def(422, IR, false,
    'This bank is not a participant of the Faster Payments System (SBP); choose another bank.',
    'Этот банк не участвует в Системе быстрых платежей (СБП); выберите другой банк.',
    'Bu bank Sürətli Ödənişlər Sisteminin (SBP) iştirakçısı deyil; başqa bank seçin.'),
  saved_payment_method_not_found: def(404, IR, false,
    'No saved card with this id for this customer.',
    'Сохранённая карта с таким идентификатором у этого покупателя не найдена.',
    'Bu müştəri üçün belə identifikatorlu saxlanmış kart tapılmadı.'),
  payment_token_invalid: def(422, IR, false,
    'A wallet payment needs a payment_token or payment_data from the wallet.',
    'Для оплаты кошельком нужен payment_token или payment_data от кошелька.',
    'Pul kisəsi ilə ödəniş üçün pul kisəsindən payment_token və ya payment_data lazımdır.'),
  test_card_in_live_mode: def(422, IR, false,
    'Test cards cannot be used in live mode.',
    'Тестовые карты нельзя использовать в боевом режиме.',
    'Test kartları canlı rejimdə istifadə oluna bilməz.'),
  connector_not_configured: def(503, 'api_error', false,
    'No acquirer is configured for live payments on this service yet.',
    'Для боевых платежей на этом сервисе ещё не подключён эквайер.',
    'Bu xidmətdə canlı ödənişlər üçün hələ ekvayer qoşulmayıb.'),
  rate_limited: def(429, 'rate_limit_error', true,
    'Too many requests; slow down and retry after the time in Retry-After.',
    'Слишком много запросов; повторите после времени из Retry-After.',
    'Həddən çox sorğu; Retry-After-də göstərilən vaxtdan sonra təkrarlayın.'),
  webhook_url_invalid: def(422, IR, false,
    'The webhook URL is not allowed: it must be an http(s) URL of a public host.',
    'Адрес вебхука не разрешён: нужен http(s)-адрес публичного хоста.',
    'Vebhuk ünvanına icazə verilmir: ictimai hostun http(s) ünvanı olmalıdır.'),
  webhook_settings_not_found: def(404, IR, false,
    'No webhook settings for this API and channel.',
    'Настройки вебхуков для этого API и канала не найдены.',
    'Bu API və kanal üçün vebhuk ayarları tapılmadı.'),
  event_not_found: def(404, IR, false,
    'No such event.',
    'Событие не найдено.',
    'Belə hadisə tapılmadı.'),
  outcome_unknown: def(503, 'api_error', true,
    'The request was interrupted and may or may not have taken effect; retry it with the same Idempotency-Key to get its result.',
    'Запрос прерван и мог быть выполнен или не выполнен; повторите его с тем же Idempotency-Key, чтобы получить результат.',
    'Sorğu kəsildi və icra oluna da bilər, olunmaya da; nəticəni almaq üçün onu eyni Idempotency-Key ilə təkrarlayın.'),
  service_unavailable: def(503, 'api_error', true,
    'The service is temporarily unavailable; retry shortly.',
    'Сервис временно недоступен; повторите чуть позже.',
    'Xidmət müvəqqəti olaraq əlçatan deyil; bir az sonra təkrarlayın.'),
  deadline_exceeded: def(503, 'api_error', true,
    'The request did not finish within its deadline and may still complete; retry with the same Idempotency-Key.',
    'Запрос не завершился в отведённое время и ещё может выполниться; повторите с тем же Idempotency-Key.',
    'Sorğu ayrılmış vaxtda bitmədi və hələ icra oluna bilər; eyni Idempotency-Key ilə təkrarlayın.'),
  internal_error: def(500, 'api_error', true,
    'Something went wrong on our side; the request can be retried.',
    'На нашей стороне произошла ошибка; запрос можно повторить.',
    'Bizim tərəfdə xəta baş verdi; sorğunu təkrarlamaq olar.'),
} as const satisfies Record<string, ErrorDef>;

export type ErrorCode = keyof typeof ERRORS;

/** A failure that travels as data: between threads, through the domain and out to the envelope. */
export interface ApiFailure {
  code: ErrorCode;
  param?: string | null;
  /** Optional extra detail appended to the localised message (never user-supplied secrets). */
  detail?: string;
  retryAfterSeconds?: number;
}

export const fail = (code: ErrorCode, param?: string | null, detail?: string): ApiFailure =>
  ({ code, param: param ?? null, ...(detail ? { detail } : {}) });

export function isFailure(x: unknown): x is ApiFailure {
  return typeof x === 'object' && x !== null && typeof (x as ApiFailure).code === 'string' &&
    (x as ApiFailure).code in ERRORS && !('id' in x);
}

export function pickLang(acceptLanguage: string | undefined | null): Lang {
  if (!acceptLanguage) return 'en';
  // First supported tag by q-value order (ties keep header order).
  const tags = acceptLanguage.split(',').map((part, i) => {
    const [tag, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return { tag: tag.split('-')[0], q: q ? Number(q.slice(2)) || 0 : 1, i };
  }).filter((t) => t.q > 0).sort((a, b) => b.q - a.q || a.i - b.i);
  for (const t of tags) if (t.tag === 'en' || t.tag === 'ru' || t.tag === 'az') return t.tag;
  return 'en';
}

export function messageFor(code: ErrorCode, lang: Lang): string {
  return ERRORS[code][lang];
}

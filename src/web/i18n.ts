// Every text of the hosted pages in en, ru and az.
import type { FailureCode } from '../domain/payment.js';
import type { MethodCode } from '../domain/methods.js';

export type PageLang = 'en' | 'ru' | 'az';
export const PAGE_LANGS: PageLang[] = ['en', 'ru', 'az'];
export const isPageLang = (v: unknown): v is PageLang => v === 'en' || v === 'ru' || v === 'az';

const en = {
  title: 'Payment', pay: 'Pay', methods: 'Payment method', language: 'Language', order: 'Order',
  cardNumber: 'Card number', expiry: 'Expiry (MM/YY)', expiryPlaceholder: 'MM/YY', cvc: 'CVC', holder: 'Cardholder name (optional)',
  showQr: 'Show QR code', scan: 'Scan the QR code with your bank app, or choose your bank:', qrAlt: 'SBP QR code',
  phone: 'Phone number (+7…)', continueTo: 'Continue to {name}', walletConfirm: 'Confirm the payment in the wallet window.',
  approve: 'Approve', decline: 'Decline', cancel: 'Cancel', savedCards: 'Your saved cards',
  waiting: 'Waiting for confirmation…', processing: 'Processing…', threeDs: 'Continue to 3-D Secure', toWallet: 'Continue to the wallet',
  succeeded: 'Payment successful', failed: 'Payment declined', expired: 'Payment time is over', closed: 'This payment is closed', cancelled: 'Payment cancelled', cancelSession: 'Cancel and return to the store',
  paidWith: 'Paid with', returnNow: 'Return to the store', returnIn: 'You will be returned to the store in a few seconds.',
  noMethods: 'No payment method is available for this payment.', fallback: 'Only card payment is available right now.',
  error: 'Something went wrong. Please try again.', notFound: 'This payment link is not valid.', testMode: 'Test mode: no real money is charged.',
  acsTitle: '3-D Secure check', acsText: 'Sandbox bank: confirm this card payment.', pass: 'Pass the check', fail: 'Fail the check',
  bankTitle: 'Bank app', bankText: 'Sandbox bank: confirm the SBP payment.', walletTitle: 'Wallet', walletText: 'Sandbox wallet: confirm the payment.',
  sandbox: 'Sandbox', amount: 'Amount',
  stepError: 'This step cannot continue', backToPayment: 'Back to the payment page',
  creqInvalid: 'This 3-D Secure page was opened without a valid challenge request (creq), so there is nothing to confirm. Go back to the payment page and start the check again.',
  refInvalid: 'This answer carries no valid reference to a payment attempt, so it was not taken. Go back to the payment page and try again.',
  answerInvalid: 'This answer was not understood, so it was not taken. Go back to the payment page and try again.',
  tooLarge: 'This request is too large, so it was not taken.',
};
type Texts = typeof en;

const ru: Texts = {
  title: 'Оплата', pay: 'Оплатить', methods: 'Способ оплаты', language: 'Язык', order: 'Заказ',
  cardNumber: 'Номер карты', expiry: 'Срок (ММ/ГГ)', expiryPlaceholder: 'ММ/ГГ', cvc: 'CVC', holder: 'Имя держателя (необязательно)',
  showQr: 'Показать QR-код', scan: 'Отсканируйте QR-код в приложении банка или выберите банк:', qrAlt: 'QR-код СБП',
  phone: 'Номер телефона (+7…)', continueTo: 'Перейти в {name}', walletConfirm: 'Подтвердите оплату в окне кошелька.',
  approve: 'Подтвердить', decline: 'Отклонить', cancel: 'Отмена', savedCards: 'Ваши сохранённые карты',
  waiting: 'Ожидаем подтверждения…', processing: 'Обработка…', threeDs: 'Перейти к 3-D Secure', toWallet: 'Перейти в кошелёк',
  succeeded: 'Оплата прошла успешно', failed: 'Платёж отклонён', expired: 'Время на оплату истекло', closed: 'Этот платёж закрыт', cancelled: 'Оплата отменена', cancelSession: 'Отменить и вернуться в магазин',
  paidWith: 'Оплачено картой', returnNow: 'Вернуться в магазин', returnIn: 'Через несколько секунд вы вернётесь в магазин.',
  noMethods: 'Для этого платежа нет доступных способов оплаты.', fallback: 'Сейчас доступна только оплата картой.',
  error: 'Что-то пошло не так. Попробуйте ещё раз.', notFound: 'Эта ссылка на оплату недействительна.', testMode: 'Тестовый режим: деньги не списываются.',
  acsTitle: 'Проверка 3-D Secure', acsText: 'Тестовый банк: подтвердите оплату картой.', pass: 'Подтвердить', fail: 'Отклонить',
  bankTitle: 'Приложение банка', bankText: 'Тестовый банк: подтвердите платёж по СБП.', walletTitle: 'Кошелёк', walletText: 'Тестовый кошелёк: подтвердите оплату.',
  sandbox: 'Песочница', amount: 'Сумма',
  stepError: 'Этот шаг нельзя продолжить', backToPayment: 'Вернуться к странице оплаты',
  creqInvalid: 'Эта страница 3-D Secure открыта без действительного запроса проверки (creq), подтверждать нечего. Вернитесь к странице оплаты и начните проверку заново.',
  refInvalid: 'В этом ответе нет действительной ссылки на попытку оплаты, поэтому он не принят. Вернитесь к странице оплаты и попробуйте ещё раз.',
  answerInvalid: 'Этот ответ не распознан, поэтому он не принят. Вернитесь к странице оплаты и попробуйте ещё раз.',
  tooLarge: 'Запрос слишком большой, поэтому он не принят.',
};

const az: Texts = {
  title: 'Ödəniş', pay: 'Ödə', methods: 'Ödəniş üsulu', language: 'Dil', order: 'Sifariş',
  cardNumber: 'Kart nömrəsi', expiry: 'Müddət (AA/İİ)', expiryPlaceholder: 'AA/İİ', cvc: 'CVC', holder: 'Kart sahibinin adı (istəyə bağlı)',
  showQr: 'QR kodu göstər', scan: 'QR kodu bank tətbiqi ilə skan edin və ya bankınızı seçin:', qrAlt: 'SBP QR kodu',
  phone: 'Telefon nömrəsi (+7…)', continueTo: '{name} ilə davam et', walletConfirm: 'Ödənişi pul kisəsi pəncərəsində təsdiqləyin.',
  approve: 'Təsdiqlə', decline: 'Rədd et', cancel: 'Ləğv et', savedCards: 'Saxlanmış kartlarınız',
  waiting: 'Təsdiq gözlənilir…', processing: 'Emal olunur…', threeDs: '3-D Secure yoxlamasına keç', toWallet: 'Pul kisəsinə keç',
  succeeded: 'Ödəniş uğurla tamamlandı', failed: 'Ödəniş rədd edildi', expired: 'Ödəniş vaxtı bitdi', closed: 'Bu ödəniş bağlanıb', cancelled: 'Ödəniş ləğv edildi', cancelSession: 'Ləğv et və mağazaya qayıt',
  paidWith: 'Ödənilib:', returnNow: 'Mağazaya qayıt', returnIn: 'Bir neçə saniyədən sonra mağazaya qaytarılacaqsınız.',
  noMethods: 'Bu ödəniş üçün mövcud ödəniş üsulu yoxdur.', fallback: 'Hazırda yalnız kartla ödəniş mümkündür.',
  error: 'Xəta baş verdi. Yenidən cəhd edin.', notFound: 'Bu ödəniş keçidi etibarsızdır.', testMode: 'Test rejimi: real pul tutulmur.',
  acsTitle: '3-D Secure yoxlaması', acsText: 'Test bankı: kartla ödənişi təsdiqləyin.', pass: 'Təsdiqlə', fail: 'Rədd et',
  bankTitle: 'Bank tətbiqi', bankText: 'Test bankı: SBP ödənişini təsdiqləyin.', walletTitle: 'Pul kisəsi', walletText: 'Test pul kisəsi: ödənişi təsdiqləyin.',
  sandbox: 'Test rejimi', amount: 'Məbləğ',
  stepError: 'Bu addımı davam etdirmək olmur', backToPayment: 'Ödəniş səhifəsinə qayıt',
  creqInvalid: 'Bu 3-D Secure səhifəsi etibarlı yoxlama sorğusu (creq) olmadan açılıb, təsdiqlənəcək heç nə yoxdur. Ödəniş səhifəsinə qayıdın və yoxlamanı yenidən başladın.',
  refInvalid: 'Bu cavabda ödəniş cəhdinə etibarlı istinad yoxdur, ona görə qəbul edilmədi. Ödəniş səhifəsinə qayıdın və yenidən cəhd edin.',
  answerInvalid: 'Bu cavab başa düşülmədi, ona görə qəbul edilmədi. Ödəniş səhifəsinə qayıdın və yenidən cəhd edin.',
  tooLarge: 'Sorğu çox böyükdür, ona görə qəbul edilmədi.',
};

export const TEXTS: Record<PageLang, Texts> = { en, ru, az };

export const METHOD_NAMES: Record<PageLang, Record<MethodCode, string>> = {
  en: { card: 'Card', sbp: 'SBP', sberpay: 'SberPay', tpay: 'T-Pay', yoomoney: 'YooMoney', recurrent: 'Saved card', apple_pay: 'Apple Pay', google_pay: 'Google Pay' },
  ru: { card: 'Карта', sbp: 'СБП', sberpay: 'SberPay', tpay: 'T-Pay', yoomoney: 'ЮMoney', recurrent: 'Сохранённая карта', apple_pay: 'Apple Pay', google_pay: 'Google Pay' },
  az: { card: 'Kart', sbp: 'SBP', sberpay: 'SberPay', tpay: 'T-Pay', yoomoney: 'YooMoney', recurrent: 'Saxlanmış kart', apple_pay: 'Apple Pay', google_pay: 'Google Pay' },
};

/** Card brands as their owners write them (brand codes from src/domain/card.ts). */
export const BRAND_NAMES: Record<PageLang, Record<string, string>> = {
  en: { visa: 'Visa', mastercard: 'Mastercard', mir: 'Mir', amex: 'American Express', unionpay: 'UnionPay', unknown: 'Card' },
  ru: { visa: 'Visa', mastercard: 'Mastercard', mir: 'Мир', amex: 'American Express', unionpay: 'UnionPay', unknown: 'Карта' },
  az: { visa: 'Visa', mastercard: 'Mastercard', mir: 'Mir', amex: 'American Express', unionpay: 'UnionPay', unknown: 'Kart' },
};
export const brandName = (brand: string, lang: PageLang): string => BRAND_NAMES[lang][brand] ?? BRAND_NAMES[lang].unknown;

export const FAILURE_TEXTS: Record<PageLang, Record<FailureCode, string>> = {
  en: {
    authentication_failed: 'The 3-D Secure check was not passed.', insufficient_funds: 'There are not enough funds on the card.',
    card_expired: 'The card has expired.', limit_exceeded: 'The card limit has been exceeded.', card_declined: 'The bank declined the payment.',
    expired: 'The time to pay has run out.',
  },
  ru: {
    authentication_failed: 'Проверка 3-D Secure не пройдена.', insufficient_funds: 'На карте недостаточно средств.',
    card_expired: 'Срок действия карты истёк.', limit_exceeded: 'Превышен лимит по карте.', card_declined: 'Банк отклонил платёж.',
    expired: 'Время на оплату истекло.',
  },
  az: {
    authentication_failed: '3-D Secure yoxlamasından keçilmədi.', insufficient_funds: 'Kartda kifayət qədər vəsait yoxdur.',
    card_expired: 'Kartın müddəti bitib.', limit_exceeded: 'Kart limiti aşılıb.', card_declined: 'Bank ödənişi rədd etdi.',
    expired: 'Ödəniş üçün vaxt bitdi.',
  },
};

// -- Payment link page (links).
const linkEn = {
  title: 'Payment link', yourAmount: 'Amount to pay', amountHint: 'In {currency}, up to {decimals} decimals', pay: 'Continue to payment',
  inactive: 'This payment link has been deactivated.', expired: 'This payment link has expired.',
  exhausted: 'This payment link has already been paid.', busy: 'This payment link is being paid right now. Try again later.',
  amountInvalid: 'Enter an amount from {min} to {max}.', scanToPay: 'Scan to pay', notFound: 'This payment link is not valid.',
};
type LinkTexts = typeof linkEn;
const linkRu: LinkTexts = {
  title: 'Ссылка на оплату', yourAmount: 'Сумма к оплате', amountHint: 'В {currency}, до {decimals} знаков после запятой', pay: 'Перейти к оплате',
  inactive: 'Эта ссылка на оплату отключена.', expired: 'Срок действия этой ссылки на оплату истёк.',
  exhausted: 'Эта ссылка на оплату уже оплачена.', busy: 'По этой ссылке сейчас идёт оплата. Попробуйте позже.',
  amountInvalid: 'Введите сумму от {min} до {max}.', scanToPay: 'Отсканируйте для оплаты', notFound: 'Эта ссылка на оплату недействительна.',
};
const linkAz: LinkTexts = {
  title: 'Ödəniş keçidi', yourAmount: 'Ödəniləcək məbləğ', amountHint: '{currency} ilə, vergüldən sonra {decimals} rəqəmə qədər', pay: 'Ödənişə keç',
  inactive: 'Bu ödəniş keçidi deaktiv edilib.', expired: 'Bu ödəniş keçidinin müddəti bitib.',
  exhausted: 'Bu ödəniş keçidi artıq ödənilib.', busy: 'Bu keçid üzrə hazırda ödəniş gedir. Sonra yenidən cəhd edin.',
  amountInvalid: '{min} ilə {max} arasında məbləğ daxil edin.', scanToPay: 'Ödəmək üçün skan edin', notFound: 'Bu ödəniş keçidi etibarsızdır.',
};
export const LINK_TEXTS: Record<PageLang, LinkTexts> = { en: linkEn, ru: linkRu, az: linkAz };
// -- end of payment link page

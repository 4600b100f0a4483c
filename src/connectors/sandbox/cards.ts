// The sandbox bank's test cards: any future expiry, any CVC. Every other number is declined.
import type { FailureCode } from '../../domain/payment.js';

export type CardScenario =
  | { kind: 'success'; country: string }
  | { kind: 'challenge'; afterPass: 'success' | FailureCode; country: string }
  | { kind: 'decline'; code: FailureCode };

export const TEST_CARDS: Record<string, CardScenario> = {
  '4242424242424242': { kind: 'success', country: 'US' },
  '5555555555554444': { kind: 'success', country: 'US' },
  '2200000000000004': { kind: 'success', country: 'RU' },
  '4000000000003220': { kind: 'challenge', afterPass: 'success', country: 'GB' },
  '4000008400001629': { kind: 'challenge', afterPass: 'card_declined', country: 'US' },
  '4000000000009995': { kind: 'decline', code: 'insufficient_funds' },
  '4000000000000069': { kind: 'decline', code: 'card_expired' },
  '4000000000000002': { kind: 'decline', code: 'card_declined' },
  '4000000000006975': { kind: 'decline', code: 'limit_exceeded' },
};

export const isTestCard = (pan: string): boolean => pan in TEST_CARDS;

/**
 * Test IBANs of the sandbox bank's payouts (docs/sandbox.md, Payouts): both have a valid checksum;
 * the bank refuses an IBAN whose last three digits are 666 (decisions.ts `refusesPayout`).
 */
export const TEST_IBANS = { paid: 'DE89370400440532013000', refused: 'DE52370400440532013666' } as const;

// Operator (/internal) request schemas of reconciliation (issue 26): the resolved/ignored flag of a
// difference, and the sandbox bank's fault helper that makes differences on purpose.
import { Type, type Static } from '@sinclair/typebox';
import type { ErrorCode } from '../errors.js';
import { Currency } from './common.js';

export const SetDifferenceStatusRequest = Type.Object({
  status: Type.Union([Type.Literal('resolved'), Type.Literal('ignored'), Type.Literal('open')], {
    description: 'resolved: the cause was fixed; ignored: not worth acting on; open: look at it again',
  }),
  note: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Why (what was done, who decided); required unless status is open' })),
}, { additionalProperties: false });
export type SetDifferenceStatusRequest = Static<typeof SetDifferenceStatusRequest>;

const Kind = Type.Union([Type.Literal('charge'), Type.Literal('capture'), Type.Literal('void'), Type.Literal('refund'), Type.Literal('payout')]);
const Outcome = Type.Union([Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('pending')]);
const Key = Type.String({ minLength: 1, maxLength: 100, description: 'The idempotency key of the bank\'s operation (the attempt id, att_…)' });
const Amount = Type.Integer({ minimum: 1, maximum: 1_000_000_000_000, description: 'Minor units' });

/** One object for every action (a union would report a mismatch at the root); the handler checks what each action needs. */
export const SandboxBankFaultRequest = Type.Object({
  action: Type.Union([Type.Literal('add'), Type.Literal('lose'), Type.Literal('change_amount'), Type.Literal('change_outcome')], {
    description: 'add: the bank records an operation the engine never asked for; lose: the bank loses one; '
      + 'change_amount / change_outcome: the bank\'s record of one shows another amount (currency) or outcome',
  }),
  idempotency_key: Type.Optional(Key),
  kind: Type.Optional(Kind),
  amount: Type.Optional(Amount),
  currency: Type.Optional(Currency),
  outcome: Type.Optional(Outcome),
}, { additionalProperties: false });
export type SandboxBankFaultRequest = Static<typeof SandboxBankFaultRequest>;

export const RECONCILIATION_FIELD_CODES: Record<string, ErrorCode> = {};

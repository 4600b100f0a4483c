// Compiled validators: each schema is compiled once at start-up; a failure is mapped to the
// catalogue code of the field it concerns.
import type { TSchema, Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { fail, type ApiFailure, type ErrorCode } from '../errors.js';
import './formats.js';

export type Validated<T> = { ok: true; value: T } | { ok: false; failure: ApiFailure };

const toParam = (path: string): string => path.replace(/^\//, '').split('/').join('.');

/** Drops null-valued keys (null means "not given") from an object and its nested objects. */
export function dropNulls(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = dropNulls(x);
  return out;
}

export function compile<S extends TSchema>(schema: S, fieldCodes: Record<string, ErrorCode>) {
  const checker = TypeCompiler.Compile(schema);
  return (input: unknown): Validated<Static<S>> => {
    if (checker.Check(input)) return { ok: true, value: input as Static<S> };
    const first = checker.Errors(input).First();
    if (!first) return { ok: false, failure: fail('parameter_invalid') };
    const param = toParam(first.path);
    // TypeBox reports an extra property at its own path, so the param names it exactly.
    if (first.type === ValueErrorType.ObjectAdditionalProperties) return { ok: false, failure: fail('parameter_unknown', param) };
    if (first.type === ValueErrorType.ObjectRequiredProperty) return { ok: false, failure: fail('parameter_missing', param) };
    if (first.type === ValueErrorType.Object && param === '') return { ok: false, failure: fail('body_invalid') };
    const top = param.split('.')[0];
    return { ok: false, failure: fail(fieldCodes[top] ?? 'parameter_invalid', param) };
  };
}


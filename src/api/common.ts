// Schemas shared by both APIs.
import { Type } from '@sinclair/typebox';
import './formats.js';

export const Currency = Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 code; case-insensitive on input, upper case on output' });
// The key pattern is what TypeBox enforces on record keys (with additionalProperties: false);
// minLength/maxLength on a record's key schema are not checked.
/** The gateway API's metadata (its spec: "string values only", no limit shown): the limits chosen in issue 9. */
export const Metadata = Type.Record(Type.String({ pattern: '^[\\s\\S]{1,40}$' }), Type.String({ maxLength: 500 }), {
  maxProperties: 20, additionalProperties: false, description: 'String values only; keys 1-40 characters, values at most 500; at most 20 keys and 4 KB in total',
});
/**
 * The merchant API's metadata: exactly its spec's limits, "string map, up to 20 keys and 4 KB". Keys
 * are non-empty; no key or value has a length of its own: they count toward the 4 KB together (the
 * total is checked by the payment rules, src/domain/payment-rules.ts).
 */
export const MerchantMetadata = Type.Record(Type.String({ pattern: '^[\\s\\S]+$' }), Type.String(), {
  maxProperties: 20, additionalProperties: false,
  description: 'String map: at most 20 keys and 4 KB (4096 bytes of UTF-8 in the keys and values together); returned as is',
});
export const Locale = Type.Union([Type.Literal('az'), Type.Literal('ru'), Type.Literal('en')]);
export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339, UTC' });

export const ErrorEnvelope = Type.Object({
  error: Type.Object({
    type: Type.String(), code: Type.String(), message: Type.String(), param: Type.Union([Type.String(), Type.Null()]),
  }),
  request_id: Type.String(),
}, { $id: 'Error' });

// The rule a schema sets for one field, in words, for the detail of a validation error: a shared
// code (parameter_invalid, settings_invalid, customer_invalid) then says what its own field needs,
// never another field's rule. Describes the schema only, never the value sent.
import type { TSchema } from '@sinclair/typebox';

const FORMATS: Record<string, string> = {
  email: 'an e-mail address', uri: 'an absolute URL', 'date-time': 'an RFC 3339 date-time', uuid: 'a UUID',
};

interface Shape {
  type?: string; const?: unknown; anyOf?: Shape[]; minimum?: number; maximum?: number; minLength?: number; maxLength?: number;
  format?: string; pattern?: string; minItems?: number; maxItems?: number; uniqueItems?: boolean; items?: Shape;
}

function length(min: number | undefined, max: number | undefined, unit: string): string {
  if (min !== undefined && min === max) return `exactly ${min} ${unit}`;
  if (min !== undefined && min > 0 && max !== undefined) return `${min} to ${max} ${unit}`;
  if (max !== undefined) return `at most ${max} ${unit}`;
  if (min !== undefined && min > 0) return `at least ${min} ${unit}`;
  return '';
}

export function schemaRule(schema: TSchema | undefined): string | null {
  const s = schema as Shape | undefined;
  if (!s) return null;
  if (s.anyOf) {
    const consts = s.anyOf.filter((x) => x.const !== undefined).map((x) => String(x.const));
    if (consts.length > 0 && consts.length === s.anyOf.filter((x) => x.type !== 'null').length) return `one of ${consts.join(', ')}`;
    return null;
  }
  if (s.const !== undefined) return `exactly ${JSON.stringify(s.const)}`;
  switch (s.type) {
    case 'integer': case 'number': {
      const kind = s.type === 'integer' ? 'an integer' : 'a number';
      if (s.minimum !== undefined && s.maximum !== undefined) return `${kind} from ${s.minimum} to ${s.maximum}`;
      if (s.minimum !== undefined) return `${kind} of at least ${s.minimum}`;
      if (s.maximum !== undefined) return `${kind} of at most ${s.maximum}`;
      return kind;
    }
    case 'string': {
      if (s.format && FORMATS[s.format]) {
        const len = length(undefined, s.maxLength, 'characters');
        return len ? `${FORMATS[s.format]} of ${len}` : FORMATS[s.format];
      }
      const len = length(s.minLength, s.maxLength, 'characters');
      const base = len ? `a string of ${len}` : 'a string';
      return s.pattern ? `${base} matching ${s.pattern}` : base;
    }
    case 'boolean': return 'true or false';
    case 'object': return 'an object';
    case 'array': {
      const len = length(s.minItems, s.maxItems, 'items');
      const each = s.items ? schemaRule(s.items as TSchema) : null;
      return `an array${len ? ` of ${len}` : ''}${s.uniqueItems ? ' without repeats' : ''}${each ? `, each ${each}` : ''}`;
    }
    default: return null;
  }
}

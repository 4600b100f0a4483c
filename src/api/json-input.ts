// The one way a request body becomes a value, and the one check every string in it passes.
// - Depth is bounded on the raw text before JSON.parse (an iterative scan), so no recursive helper
//   after it (validation, hashing, null-dropping) can overflow the stack.
// - Keys that could reach a prototype (__proto__, constructor, prototype) are refused anywhere in
//   the body as unknown parameters; every object is also built with a null prototype, so no key
//   can reach one even if a later step copies it carelessly.
// - Strings (keys and values) holding NUL or a lone UTF-16 surrogate are refused: Postgres cannot
//   store them, and they have no meaning in any field.

/** Deepest nesting of objects and arrays a body may have (documented in docs/decisions.md). */
export const MAX_JSON_DEPTH = 32;

export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

// NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const BAD_STRING_RE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when the string can be stored and shown: no NUL, no lone surrogate. */
export const isCleanString = (s: string): boolean => !BAD_STRING_RE.test(s);

/** Whether the JSON text nests objects/arrays deeper than `max` (brackets inside strings do not count). */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) { if (++depth > max) return true; }
    else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return false;
}

export type JsonProblem =
  | { problem: 'json_invalid' }
  | { problem: 'too_deep' }
  | { problem: 'key_forbidden'; param: string };

export type ParsedJson = { ok: true; value: unknown } | ({ ok: false } & JsonProblem);

/**
 * A copy of a value JSON.parse returned with every object rebuilt on a null prototype; `seen.forbidden`
 * is set when a key could reach a prototype (the caller then locates it with findBadInput). JSON.parse
 * itself keeps such a key an own property, so the parse is safe and only the copy's objects matter.
 * Recursive, within the depth jsonTooDeep has bounded. (A reviver did this before: for a 240-byte
 * card body it cost 3.6 µs of the parse's 4.8, against 0.6 µs for this walk.)
 */
function nullProtoCopy(v: unknown, seen: { forbidden: boolean }): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = nullProtoCopy(v[i], seen);
    return v;
  }
  const out = Object.create(null) as Record<string, unknown>;
  // Own keys only: an enumerable key some code put on Object.prototype must not join the body.
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (FORBIDDEN_KEYS.has(k)) seen.forbidden = true;
    out[k] = nullProtoCopy((v as Record<string, unknown>)[k], seen);
  }
  return out;
}

/** Parses a request body: bounded depth, no prototype keys, null-prototype objects. */
export function parseJsonBody(text: string): ParsedJson {
  if (jsonTooDeep(text)) return { ok: false, problem: 'too_deep' };
  let parsed: unknown;
  try { parsed = JSON.parse(text); } catch { return { ok: false, problem: 'json_invalid' }; }
  const seen = { forbidden: false };
  const value = nullProtoCopy(parsed, seen);
  if (seen.forbidden) {
    const bad = findBadInput(value, { strings: false });
    if (bad) return { ok: false, problem: 'key_forbidden', param: bad.param };
  }
  return { ok: true, value };
}

export interface BadInput { kind: 'key_forbidden' | 'string_invalid'; param: string; /** The top-level field it is under ('' for the body itself). */ top: string }

const shown = (k: string): string => k.replace(/[\u0000\ud800-\udfff]/g, '\ufffd');

/**
 * The first forbidden key or unclean string (key or value) in a value, walked iteratively.
 * `param` is the dotted path (as the validator names params), with bad characters replaced by U+FFFD.
 * Almost every body has none: a first walk only answers whether there is one, building no path;
 * the second, which names it, runs only then.
 */
export function findBadInput(root: unknown, opts: { strings: boolean } = { strings: true }): BadInput | null {
  return hasBadInput(root, opts.strings) ? locateBadInput(root, opts.strings) : null;
}

function hasBadInput(root: unknown, strings: boolean): boolean {
  if (root === null || typeof root !== 'object') return strings && typeof root === 'string' && !isCleanString(root);
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') { if (strings && !isCleanString(v)) return true; continue; }
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) { for (let i = 0; i < v.length; i++) stack.push(v[i]); continue; }
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (FORBIDDEN_KEYS.has(k) || (strings && !isCleanString(k))) return true;
      stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return false;
}

function locateBadInput(root: unknown, strings: boolean): BadInput | null {
  const opts = { strings };
  const stack: [unknown, string][] = [[root, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (opts.strings && !isCleanString(v)) return { kind: 'string_invalid', param: path, top: path.split('.')[0] };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], path === '' ? String(i) : `${path}.${i}`]);
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i];
      const p = path === '' ? shown(k) : `${path}.${shown(k)}`;
      if (FORBIDDEN_KEYS.has(k)) return { kind: 'key_forbidden', param: p, top: p.split('.')[0] };
      if (opts.strings && !isCleanString(k)) return { kind: 'string_invalid', param: p, top: p.split('.')[0] };
      stack.push([(v as Record<string, unknown>)[k], p]);
    }
  }
  return null;
}

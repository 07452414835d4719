/**
 * Hostile-text rules applied once, where input enters (the route registry for path, query and body;
 * the body parser for nesting), so a route added later gets them without thinking:
 *
 * - NUL (U+0000): Postgres `text` and `jsonb` cannot hold it, so a NUL that reached a query would be
 *   a 500. It is refused with a 400 naming the field, in values and in object keys alike.
 * - Lone surrogates (U+D800–U+DFFF without a partner): not text at all; the driver would store them
 *   as U+FFFD, silently changing what the caller sent. Refused the same way.
 * - Nesting deeper than MAX_BODY_DEPTH: everything downstream (zod, RFC 8785 canonical JSON for
 *   idempotency, JSON.stringify into jsonb) recurses, so a deep body is refused before any of it runs.
 *   The walk here is iterative.
 * - Members that name a prototype (`__proto__`, and `constructor` holding `prototype`): see
 *   dropPrototypeKeys.
 */

/**
 * The NUL rule as a JSON Schema `pattern`, which the OpenAPI document puts on every request string
 * that has no pattern, format or enum of its own (api/openapi.ts), so the contract says it too. The
 * lone-surrogate rule has no portable pattern: JSON Schema strings are sequences of code points, and
 * validators built on Unicode scalar values (Rust's regex, used by several) refuse a pattern that
 * names U+D800–U+DFFF. It is stated in docs/CONTRACT.md instead.
 */
export const TEXT_PATTERN = '^[^\\u0000]*$';
/** NUL as a regex escape, for the character classes of patterns that exclude other characters too. */
export const NUL_ESCAPE = '\\u0000';

/** Deepest nesting of arrays and objects a request body may have (the body itself is level 1). */
export const MAX_BODY_DEPTH = 64;

export type BadInput = { kind: 'nul' | 'surrogate'; field: string } | { kind: 'depth'; field: string };

const LONE_SURROGATE = /\p{Cs}/u;

/** The first thing wrong with a string, or null. */
export function badText(s: string): 'nul' | 'surrogate' | null {
  if (s.includes('\u0000')) return 'nul';
  if (LONE_SURROGATE.test(s)) return 'surrogate';
  return null;
}

/**
 * Walks `value` without recursion and returns the first NUL, lone surrogate or over-deep nesting,
 * naming the field as a dotted path under `prefix` (array positions as `[i]`).
 */
export function findBadInput(value: unknown, prefix = '', opts: { text?: boolean; maxDepth?: number } = {}): BadInput | null {
  const checkText = opts.text ?? true;
  const maxDepth = opts.maxDepth ?? MAX_BODY_DEPTH;
  const join = (base: string, key: string) => (base ? `${base}.${key}` : key);
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: value, path: prefix, depth: 0 }];
  while (stack.length) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (!checkText) continue;
      const bad = badText(v);
      if (bad) return { kind: bad, field: path || 'body' };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > maxDepth) return { kind: 'depth', field: path || 'body' };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${path}[${i}]`, depth: depth + 1 });
      continue;
    }
    const entries = Object.entries(v as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, child] = entries[i]!;
      const childPath = join(path, k);
      const badKey = checkText ? badText(k) : null;
      if (badKey) return { kind: badKey, field: join(path, JSON.stringify(k)) };
      stack.push({ v: child, path: childPath, depth: depth + 1 });
    }
  }
  return null;
}

export function describeBadInput(bad: BadInput): string {
  switch (bad.kind) {
    case 'nul':
      return `Invalid ${bad.field}: contains a NUL character (U+0000), which text cannot hold.`;
    case 'surrogate':
      return `Invalid ${bad.field}: contains a lone UTF-16 surrogate, which is not valid Unicode text.`;
    case 'depth':
      return `Invalid ${bad.field}: nested deeper than ${MAX_BODY_DEPTH} levels.`;
  }
}

/**
 * Removes, in place and without recursion, every member named `__proto__` and every `constructor`
 * member whose value holds a `prototype` member. JSON.parse keeps such a member as a plain own
 * member, which is harmless by itself; but code that copies members one by one (`out[key] = value`,
 * Object.assign, a deep merge) would set the copy's prototype, or reach Object.prototype through
 * `constructor.prototype`. Removing them from what passed validation means nothing downstream (a
 * domain function, a stored jsonb column, a merge) ever sees one.
 */
export function dropPrototypeKeys(value: unknown): void {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    // Pushed one by one: a spread of a large array would exceed the argument limit.
    if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
      continue;
    }
    const obj = v as Record<string, unknown>;
    if (Object.hasOwn(obj, '__proto__')) delete obj['__proto__'];
    const ctor = Object.hasOwn(obj, 'constructor') ? obj['constructor'] : undefined;
    if (ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) delete obj['constructor'];
    for (const child of Object.values(obj)) stack.push(child);
  }
}

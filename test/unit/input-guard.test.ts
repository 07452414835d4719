import { describe, expect, it } from 'vitest';
import { dropPrototypeKeys } from '../../src/input-guard';

describe('dropPrototypeKeys', () => {
  it('removes __proto__ members and constructors holding a prototype, at any depth and in arrays, and nothing else', () => {
    const body: unknown = JSON.parse(
      '{"__proto__":{"x":1},"a":{"constructor":{"prototype":{"x":1}},"b":[{"__proto__":null},{"constructor":"text"}]},' +
        '"c":{"constructor":{"name":"kept: no prototype member"}}}',
    );
    // JSON.parse keeps them as plain own members: harmless until copied member by member.
    expect(Object.hasOwn(body as object, '__proto__')).toBe(true);
    dropPrototypeKeys(body);
    expect(Object.hasOwn(body as object, '__proto__')).toBe(false);
    const kept: unknown = { a: { b: [{}, { constructor: 'text' }] }, c: { constructor: { name: 'kept: no prototype member' } } };
    expect(body).toEqual(kept);
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
  });

  it('walks without recursion (a body nested far deeper than the stack allows)', () => {
    const deep: unknown = JSON.parse('{"a":'.repeat(100_000) + '{"__proto__":{"x":1}}' + '}'.repeat(100_000));
    expect(() => dropPrototypeKeys(deep)).not.toThrow();
  });
});

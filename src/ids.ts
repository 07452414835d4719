import { randomBytes } from 'node:crypto';

/** Opaque, prefixed, URL-safe ids (`dev_…`, `key_…`) so a stray id says what it names. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}

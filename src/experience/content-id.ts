import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** A prefixed id that is a hash of its content, so the same inputs always get the same id. */
export function contentId(prefix: string, content: unknown): string {
  const digest = createHash('sha256')
    .update(canonicalize(content) ?? 'null')
    .digest('base64url');
  return `${prefix}_${digest.slice(0, 22)}`;
}

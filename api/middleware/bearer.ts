import type { AppContext } from '../context';

/**
 * The token of `Authorization: Bearer <token>`, or null. Apart from auth.ts: the rate limiter reads it
 * too (a key's bucket), and authentication takes from the rate limiter's budgets.
 */
export function bearerToken(ctx: AppContext): string | null {
  const header = ctx.get('authorization');
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1] ?? null;
}

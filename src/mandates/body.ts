import { AppError } from '../errors';
import { SIGN_BODY_MEMBERS } from '../schemas/mandates';

/**
 * A member the schema does not know would be silently dropped and so left unsigned; the caller
 * might believe it is part of the mandate. Refuse it instead: 400 `invalid_body` naming it.
 */
export function refuseUnknownMembers(raw: unknown): void {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return;
  const unknown = Object.keys(raw).filter((k) => !SIGN_BODY_MEMBERS.includes(k));
  if (unknown.length) {
    throw new AppError(400, 'invalid_body', `Unknown field(s): ${unknown.join(', ')}.`, { fields: unknown });
  }
}

import type { Db } from '../db/connect';
import type { Developer } from '../db/schema';
import { AppError } from '../errors';
import { newId } from '../ids';
import { constantTimeEqual } from '../crypto/tokens';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../crypto/passwords';
import { createSession } from './sessions';

export interface ConsoleDeps {
  db: Db;
  inviteCodes: string[];
  sessionTtlSeconds: number;
  keyEncryptionKey?: Buffer;
}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

export function isValidInviteCode(deps: ConsoleDeps, code: string): boolean {
  return deps.inviteCodes.some((valid) => constantTimeEqual(valid, code));
}

export async function registerDeveloper(
  deps: ConsoleDeps,
  input: {
    display_name: string;
    contact_email: string;
    password: string;
    company?: string;
    website?: string;
    metadata?: Record<string, unknown>;
    invite_code?: string;
  },
) {
  const inviteOk = input.invite_code !== undefined && isValidInviteCode(deps, input.invite_code);
  const now = new Date();
  const passwordHash = await hashPassword(input.password);
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const developer = await trx
        .insertInto('developers')
        .values({
          developer_id: newId('dev'),
          display_name: input.display_name,
          contact_email: input.contact_email,
          email_normalized: input.contact_email.toLowerCase(),
          company: input.company ?? null,
          website: input.website ?? null,
          password_hash: passwordHash,
          status: 'active',
          invite_verified_at: inviteOk ? now : null,
          metadata: JSON.stringify(input.metadata ?? {}),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const { token, session } = await createSession(trx, developer.developer_id, deps.sessionTtlSeconds);
      const warning =
        input.invite_code !== undefined && !inviteOk
          ? 'invite_code was not valid; the account was created unverified. Verify a valid code with POST /v1/developers/invite/verify.'
          : undefined;
      return { developer, token, session, warning };
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError(409, 'account_exists', 'A developer account already exists for this email.');
    }
    throw err;
  }
}

export async function loginDeveloper(deps: ConsoleDeps, email: string, password: string) {
  const developer = await deps.db
    .selectFrom('developers')
    .selectAll()
    .where('email_normalized', '=', email.toLowerCase())
    .executeTakeFirst();
  // Same answer, and the same scrypt, whether the email or the password is wrong, so accounts cannot
  // be enumerated by the answer or by its timing.
  const verified = await verifyPassword(password, developer?.password_hash ?? DUMMY_PASSWORD_HASH);
  const ok = developer !== undefined && verified;
  if (!developer || !ok || developer.status !== 'active') {
    throw new AppError(401, 'invalid_credentials', 'Invalid email or password.');
  }
  const { token, session } = await createSession(deps.db, developer.developer_id, deps.sessionTtlSeconds);
  return { developer, token, session };
}

export async function verifyInvite(deps: ConsoleDeps, developer: Developer, code: string): Promise<Developer> {
  if (!isValidInviteCode(deps, code)) {
    throw new AppError(403, 'invalid_invite_code', 'The invite code is not valid.');
  }
  if (developer.invite_verified_at) return developer;
  const now = new Date();
  return deps.db
    .updateTable('developers')
    .set({ invite_verified_at: now, updated_at: now })
    .where('developer_id', '=', developer.developer_id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

import { queryPrepared, type Db } from '../db/connect';
import type { ApiKey, ApiKeyUpdate, Developer } from '../db/schema';
import { AppError } from '../errors';
import { newId } from '../ids';
import { newSecret, sha256Hex } from '../crypto/tokens';
import { decryptSecret, encryptSecret } from '../crypto/key-encryption';
import type { ApiKeyScope } from '../schemas/console';
import type { ConsoleDeps } from './developers';

export const API_KEY_PREFIX = 'cig_sk_';
/** How much of the key is kept in clear for display: the prefix plus 6 characters. */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 6;

export interface ApiKeyPrincipal {
  keyId: string;
  developerId: string;
  scopes: string[];
}

const keyNotFound = () => new AppError(404, 'api_key_not_found', 'API key not found.');

/**
 * Creates a key. `keyId` is given by a keyed request (derived from its Idempotency-Key claim): when
 * the first run committed the key and its process died before answering, the retry finds that key
 * and gives it a fresh secret, since the caller never saw the first one; so a retried creation never
 * leaves a second key behind.
 */
export async function createApiKey(
  deps: ConsoleDeps,
  developer: Developer,
  input: { label?: string; scopes?: string[] },
  keyId: string = newId('key'),
): Promise<{ apiKey: string; key: ApiKey }> {
  if (!developer.invite_verified_at) {
    throw new AppError(403, 'invite_verification_required', 'Verify an invite code before creating API keys.');
  }
  const apiKey = newSecret(API_KEY_PREFIX);
  const scopes = normalizeScopes(input.scopes);
  const secret = {
    key_prefix: apiKey.slice(0, DISPLAY_PREFIX_LENGTH),
    key_hash: sha256Hex(apiKey),
    // Without an encryption key the key is stored hash-only and can never be revealed.
    key_ciphertext: deps.keyEncryptionKey ? encryptSecret(deps.keyEncryptionKey, apiKey, keyId) : null,
  };
  const key = await deps.db
    .insertInto('api_keys')
    .values({
      key_id: keyId,
      developer_id: developer.developer_id,
      ...secret,
      label: input.label ?? null,
      scopes: JSON.stringify(scopes),
      status: 'active',
      created_at: new Date(),
    })
    .onConflict((oc) => oc.column('key_id').doUpdateSet(secret).where('api_keys.developer_id', '=', developer.developer_id))
    .returningAll()
    // No row: the id is another developer's, which a derived id (sha-256 of a random seed) never is.
    .executeTakeFirstOrThrow();
  return { apiKey, key };
}

function normalizeScopes(scopes: string[] | undefined): string[] {
  if (!scopes || scopes.includes('*')) return ['*'];
  return [...new Set(scopes)].sort();
}

export function hasScope(principal: ApiKeyPrincipal, scope: ApiKeyScope): boolean {
  return principal.scopes.includes('*') || principal.scopes.includes(scope);
}

/** Deleted keys are kept for audit but are invisible to the console. */
async function ownedKey(db: Db, developerId: string, keyId: string): Promise<ApiKey> {
  const key = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('key_id', '=', keyId)
    .where('developer_id', '=', developerId)
    .where('status', '!=', 'deleted')
    .executeTakeFirst();
  if (!key) throw keyNotFound();
  return key;
}

export async function listApiKeys(db: Db, developerId: string): Promise<ApiKey[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('developer_id', '=', developerId)
    .where('status', '!=', 'deleted')
    .orderBy('created_at', 'desc')
    .orderBy('key_id')
    .execute();
}

async function updateOwnedKey(db: Db, developerId: string, keyId: string, set: ApiKeyUpdate) {
  const key = await db
    .updateTable('api_keys')
    .set(set)
    .where('key_id', '=', keyId)
    .where('developer_id', '=', developerId)
    .where('status', '!=', 'deleted')
    .returningAll()
    .executeTakeFirst();
  if (!key) throw keyNotFound();
  return key;
}

export function renameApiKey(db: Db, developerId: string, keyId: string, label: string) {
  return updateOwnedKey(db, developerId, keyId, { label });
}

export async function revokeApiKey(db: Db, developerId: string, keyId: string): Promise<ApiKey> {
  const key = await ownedKey(db, developerId, keyId);
  if (key.status === 'revoked') return key;
  return updateOwnedKey(db, developerId, keyId, { status: 'revoked', revoked_at: new Date() });
}

export async function deleteApiKey(db: Db, developerId: string, keyId: string): Promise<ApiKey> {
  const key = await ownedKey(db, developerId, keyId);
  const now = new Date();
  return updateOwnedKey(db, developerId, keyId, {
    status: 'deleted',
    deleted_at: now,
    revoked_at: key.revoked_at ?? now,
  });
}

export async function revealApiKey(deps: ConsoleDeps, developerId: string, keyId: string) {
  const key = await ownedKey(deps.db, developerId, keyId);
  if (!key.key_ciphertext) {
    throw new AppError(410, 'key_not_revealable', 'The full key is unavailable: this key was stored hash-only.');
  }
  if (!deps.keyEncryptionKey) {
    throw new AppError(410, 'key_not_revealable', 'The full key is unavailable: encrypted key storage is not configured.');
  }
  let apiKey: string;
  try {
    apiKey = decryptSecret(deps.keyEncryptionKey, key.key_ciphertext, key.key_id);
  } catch {
    // Ciphertext from another KEY_ENCRYPTION_KEY (rotated or lost): the key can no longer be shown.
    throw new AppError(410, 'key_not_revealable', 'The full key is unavailable: it was encrypted with a different key.');
  }
  return { apiKey, key };
}

/** Every API-key request runs this lookup, so it is prepared once per connection (queryPrepared). */
const AUTHENTICATE_API_KEY = `select key_id, developer_id, scopes from api_keys where key_hash = $1 and status = 'active'`;

/** Looks the key up on every request, so a revoked or deleted key fails on the very next call. */
export async function authenticateApiKey(db: Db, token: string): Promise<ApiKeyPrincipal | null> {
  if (!token.startsWith(API_KEY_PREFIX)) return null;
  const [row] = await queryPrepared<Pick<ApiKey, 'key_id' | 'developer_id' | 'scopes'>>(db, 'authenticate_api_key', AUTHENTICATE_API_KEY, [
    sha256Hex(token),
  ]);
  return row ? { keyId: row.key_id, developerId: row.developer_id, scopes: row.scopes } : null;
}

import { randomBytes } from 'node:crypto';
import { AppError } from '../errors';
import { newSecret, sha256Hex, constantTimeEqual } from '../crypto/tokens';
import { decryptSecret, encryptSecret } from '../crypto/key-encryption';

/**
 * Secrets a registry hands to a registrant: the registration token (stored only as a hash) and the
 * merchant's webhook secret, which the gateway must read back to sign deliveries, so it is sealed
 * with KEY_ENCRYPTION_KEY when one is configured.
 */

export const MERCHANT_TOKEN_PREFIX = 'mrt_';
export const AGENT_TOKEN_PREFIX = 'agt_';

export function mintRegistrationToken(prefix: string): { token: string; hash: string } {
  const token = newSecret(prefix);
  return { token, hash: sha256Hex(token) };
}

export function registrationTokenMatches(token: string, storedHash: string): boolean {
  return constantTimeEqual(sha256Hex(token), storedHash);
}

/** Standard Webhooks secret: `whsec_` + base64 of 32 random bytes (what `standardwebhooks` expects). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * A secret the gateway must read back, sealed with KEY_ENCRYPTION_KEY under a context naming what
 * it is and whose (`webhook:<merchant>`, …), so one sealed value cannot be opened as another; kept
 * as `plain.<value>` when no key is configured.
 */
export function sealSecret(key: Buffer | undefined, context: string, value: string): string {
  return key ? encryptSecret(key, value, context) : `plain.${value}`;
}

export function openSecret(key: Buffer | undefined, context: string, sealed: string): string {
  if (sealed.startsWith('plain.')) return sealed.slice('plain.'.length);
  if (!key) throw new Error(`KEY_ENCRYPTION_KEY is needed to read sealed secrets (${context.split(':')[0]})`);
  return decryptSecret(key, sealed, context);
}

export const sealWebhookSecret = (key: Buffer | undefined, merchantId: string, secret: string) =>
  sealSecret(key, `webhook:${merchantId}`, secret);
export const openWebhookSecret = (key: Buffer | undefined, merchantId: string, sealed: string) =>
  openSecret(key, `webhook:${merchantId}`, sealed);

/** A credential a merchant issued to the gateway (an ACP seller's API key). */
export const sealCredential = (key: Buffer | undefined, merchantId: string, credential: string) =>
  sealSecret(key, `seller-credential:${merchantId}`, credential);
export const openSealedCredential = (key: Buffer | undefined, merchantId: string, sealed: string) =>
  openSecret(key, `seller-credential:${merchantId}`, sealed);

export type RegistrationTokenHeader = 'x-merchant-token' | 'x-agent-token';

/** A missing registration token is 401, a wrong one 403 (docs/CONTRACT.md#credentials). */
export function missingRegistrationToken(header: RegistrationTokenHeader): AppError {
  return header === 'x-agent-token'
    ? new AppError(401, 'agent_token_required', 'X-Agent-Token required.')
    : new AppError(401, 'missing_registration_token', 'Missing registration token: send X-Merchant-Token.');
}

export const invalidRegistrationToken = () => new AppError(403, 'invalid_registration_token', 'Invalid registration token.');

/**
 * Updating an existing registration needs that registration's own token. With the id, the error says
 * the id is taken: a second developer following an example that registers a fixed id learns that the
 * id belongs to someone else and needs its token, or that they should pick another id.
 */
export function assertRegistrationToken(
  header: RegistrationTokenHeader,
  presented: string | undefined,
  storedHash: string,
  registeredId?: string,
): void {
  const kind = header === 'x-agent-token' ? 'agent_id' : 'merchant_id';
  const headerName = header === 'x-agent-token' ? 'X-Agent-Token' : 'X-Merchant-Token';
  if (!presented) {
    if (!registeredId) throw missingRegistrationToken(header);
    const err = missingRegistrationToken(header);
    throw new AppError(
      err.status,
      err.code,
      `The ${kind} '${registeredId}' is already registered: updating it needs its registration token (${headerName}), returned once when it was first registered. If it is not yours, register under another ${kind}.`,
      { [kind]: registeredId },
    );
  }
  if (!registrationTokenMatches(presented, storedHash)) {
    if (!registeredId) throw invalidRegistrationToken();
    throw new AppError(
      403,
      'invalid_registration_token',
      `The ${headerName} is not the registration token of '${registeredId}', which is already registered. If it is not yours, register under another ${kind}.`,
      { [kind]: registeredId },
    );
  }
}

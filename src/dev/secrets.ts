import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';

export interface DevSecrets {
  SUPPLY_KEY: string;
  INVITE_CODES: string;
  KEY_ENCRYPTION_KEY: string;
  MATCH_TOKEN_SIGNING_KEY: string;
  MANDATE_SIGNING_KEY: string;
  UCP_SIGNING_KEY: string;
}

/**
 * Development defaults for the secret env vars: generated on the first `npm start`, kept in
 * `.data/dev-secrets.json` (git-ignored, mode 600) so that revealable keys and signed tokens survive
 * a restart. Nothing secret is hard-coded.
 */
export async function loadOrCreateDevSecrets(dataDir: string): Promise<DevSecrets> {
  const file = path.join(dataDir, 'dev-secrets.json');
  const pem = (k: { privateKey: import('node:crypto').KeyObject }) => k.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const ucpKey = () => pem(generateKeyPairSync('ec', { namedCurve: 'P-256' }));
  if (existsSync(file)) {
    const kept = JSON.parse(await readFile(file, 'utf8')) as Partial<DevSecrets>;
    // A data directory from before the UCP key existed gets one, kept from now on.
    if (kept.UCP_SIGNING_KEY) return kept as DevSecrets;
    const upgraded = { ...kept, UCP_SIGNING_KEY: ucpKey() } as DevSecrets;
    await writeFile(file, JSON.stringify(upgraded, null, 2), { mode: 0o600 });
    return upgraded;
  }
  const secrets: DevSecrets = {
    SUPPLY_KEY: `supply_${randomBytes(24).toString('base64url')}`,
    INVITE_CODES: `dev-invite-${randomBytes(4).toString('hex')}`,
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    MATCH_TOKEN_SIGNING_KEY: pem(generateKeyPairSync('ed25519')),
    MANDATE_SIGNING_KEY: pem(generateKeyPairSync('rsa', { modulusLength: 2048 })),
    UCP_SIGNING_KEY: ucpKey(),
  };
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

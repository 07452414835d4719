import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';

export interface SigningKey {
  kid: string;
  alg: 'EdDSA' | 'RS256';
  privateKey: KeyObject;
  publicJwk: JWK;
}

export interface SigningKeys {
  /** Signs match tokens (compact JWS, EdDSA). Always present. */
  matchToken: SigningKey;
  /** Signs intent mandates (RS256); null when the integration has no key → signing answers 503. */
  mandate: SigningKey | null;
  /** True when the match-token key was generated for this process only (tokens die with it). */
  ephemeral: boolean;
}

async function toSigningKey(privateKey: KeyObject, alg: SigningKey['alg']): Promise<SigningKey> {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(jwk);
  return { kid, alg, privateKey, publicJwk: { ...jwk, kid, alg, use: 'sig' } };
}

export async function loadSigningKeys(cfg: { MATCH_TOKEN_SIGNING_KEY?: string; MANDATE_SIGNING_KEY?: string }): Promise<SigningKeys> {
  const ephemeral = !cfg.MATCH_TOKEN_SIGNING_KEY;
  const matchPrivate = cfg.MATCH_TOKEN_SIGNING_KEY
    ? createPrivateKey(cfg.MATCH_TOKEN_SIGNING_KEY)
    : generateKeyPairSync('ed25519').privateKey;
  if (matchPrivate.asymmetricKeyType !== 'ed25519') {
    throw new Error('MATCH_TOKEN_SIGNING_KEY must be an Ed25519 private key');
  }
  let mandate: SigningKey | null = null;
  if (cfg.MANDATE_SIGNING_KEY) {
    const rsa = createPrivateKey(cfg.MANDATE_SIGNING_KEY);
    if (rsa.asymmetricKeyType !== 'rsa') throw new Error('MANDATE_SIGNING_KEY must be an RSA private key');
    mandate = await toSigningKey(rsa, 'RS256');
  }
  return { matchToken: await toSigningKey(matchPrivate, 'EdDSA'), mandate, ephemeral };
}

/** The public half of every key the service signs with, as served at /.well-known/jwks.json. */
export function jwks(keys: SigningKeys): { keys: JWK[] } {
  return { keys: [keys.matchToken.publicJwk, ...(keys.mandate ? [keys.mandate.publicJwk] : [])] };
}

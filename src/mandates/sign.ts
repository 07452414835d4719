import { randomBytes, sign as rsaSign } from 'node:crypto';
import canonicalize from 'canonicalize';
import { CompactSign } from 'jose';
import type { Db } from '../db/connect';
import type { SigningKey } from '../crypto/signing-keys';
import type { ApiKeyPrincipal } from '../console/api-keys';
import { AppError } from '../errors';
import { newId } from '../ids';
import type { IntentMandate, IntentMandatePayload, IntentMandateSignInput } from '../schemas/mandates';
import { getOwnIntent } from '../matching/intents';
import { apiCaller } from '../tenancy';
import { catalogHasProduct, productNotFound } from '../catalog/products';

/**
 * Intent mandates (docs/MANDATES.md): the payload is serialized as RFC 8785 canonical JSON, and those UTF-8
 * bytes are signed twice with the integration's RSA key — once as a bare RSA-SHA256 (PKCS#1 v1.5)
 * signature that `openssl dgst -sha256 -verify` checks, once as a compact RS256 JWS whose payload
 * is the same canonical text (checked with jose and /.well-known/jwks.json). Every mandate is stored.
 */

export interface MandateDeps {
  db: Db;
  /** null when MANDATE_SIGNING_KEY is not configured: signing is not enabled → 503. */
  signingKey: SigningKey | null;
  /** The gateway's public base URL: the payload's issuer, and where the JWKS lives. */
  issuer: string;
  now?: () => Date;
}

export const signingUnavailable = () =>
  new AppError(
    503,
    'signing_unavailable',
    'Intent mandate signing is not enabled for this integration (no mandate signing key is configured).',
  );

/** The canonical text of a payload: RFC 8785 (sorted keys, ES number form, no whitespace). */
export function canonicalPayload(payload: IntentMandatePayload): string {
  const text = canonicalize(payload);
  if (text === undefined) throw new Error('mandate payload is not serializable');
  return text;
}

/**
 * `mandate_id` is fixed by the request's Idempotency-Key claim when it has one: a retry after the API
 * died answers the mandate the first run stored (its signature, nonce and times), not a second one.
 */
export async function signIntentMandate(
  deps: MandateDeps,
  input: IntentMandateSignInput,
  principal: ApiKeyPrincipal,
  mandate_id: string = newId('mnd'),
): Promise<IntentMandate> {
  const key = deps.signingKey;
  if (!key) throw signingUnavailable();
  // A mandate may name only an intent of the caller's own (another developer's answers as unknown).
  if (input.intent_id !== undefined) await getOwnIntent(deps.db, input.intent_id, apiCaller(principal.developerId));
  // A mandate spends on a product: one the catalog does not have (of the named merchant, if any) is
  // no authority anybody could use.
  if (!(await catalogHasProduct(deps.db, input.product_id, input.merchant_id))) throw productNotFound(input.product_id, input.merchant_id);
  const stored = await deps.db
    .selectFrom('intent_mandates')
    .selectAll()
    .where('mandate_id', '=', mandate_id)
    .where('developer_id', '=', principal.developerId)
    .executeTakeFirst();
  if (stored) return mandateOf(stored, deps.issuer);

  // Whole seconds, so issued_at/expires_at read the same in every language's date parser.
  const issued = new Date(Math.floor((deps.now?.() ?? new Date()).getTime() / 1000) * 1000);
  const expires = new Date(issued.getTime() + input.expires_in_s * 1000);
  const payload: IntentMandatePayload = {
    type: 'intent_mandate',
    version: 1,
    mandate_id,
    issuer: deps.issuer,
    developer_id: principal.developerId,
    product_id: input.product_id,
    amount_limit: input.amount_limit,
    currency: input.currency,
    ...(input.intent_id !== undefined ? { intent_id: input.intent_id } : {}),
    ...(input.merchant_id !== undefined ? { merchant_id: input.merchant_id } : {}),
    ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
    issued_at: issued.toISOString(),
    expires_at: expires.toISOString(),
    nonce: randomBytes(16).toString('base64url'),
  };
  const canonical = canonicalPayload(payload);
  const bytes = Buffer.from(canonical, 'utf8');
  // RSA keys sign with PKCS#1 v1.5 padding by default: exactly what `openssl dgst -sha256 -verify` checks.
  const signature = rsaSign('sha256', bytes, key.privateKey).toString('base64url');
  const jws = await new CompactSign(bytes)
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'intent-mandate+jws' })
    .sign(key.privateKey);

  await deps.db
    .insertInto('intent_mandates')
    .values({
      mandate_id,
      developer_id: principal.developerId,
      api_key_id: principal.keyId,
      product_id: payload.product_id,
      amount_limit: payload.amount_limit,
      currency: payload.currency,
      intent_id: payload.intent_id ?? null,
      merchant_id: payload.merchant_id ?? null,
      payload: JSON.stringify(payload),
      canonical_payload: canonical,
      signature,
      jws,
      alg: 'RS256',
      kid: key.kid,
      issued_at: issued,
      expires_at: expires,
      created_at: new Date(),
    })
    .execute();

  return mandateOf({ mandate_id, payload, canonical_payload: canonical, signature, jws, kid: key.kid }, deps.issuer);
}

function mandateOf(
  m: { mandate_id: string; payload: unknown; canonical_payload: string; signature: string; jws: string; kid: string },
  issuer: string,
): IntentMandate {
  const payload = m.payload as IntentMandatePayload;
  return {
    mandate_id: m.mandate_id,
    payload,
    canonical_payload: m.canonical_payload,
    signature: m.signature,
    jws: m.jws,
    alg: 'RS256',
    kid: m.kid,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    issued_at: payload.issued_at,
    expires_at: payload.expires_at,
  };
}

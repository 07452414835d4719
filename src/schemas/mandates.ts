import { z } from 'zod';
import { atLeastOneMinorUnit, isoDateTime, money, text } from './common';

/**
 * Intent mandates (docs/MANDATES.md): a caller asks the gateway to sign "this integration may spend up to
 * amount_limit on product_id until expires_at". Every validation failure is 400 `invalid_body`.
 */

export const MANDATE_TTL_DEFAULT_S = 3600;
export const MANDATE_TTL_MIN_S = 60;
export const MANDATE_TTL_MAX_S = 7 * 24 * 3600;
/** Upper bound of amount_limit: far beyond any single purchase, well inside exact doubles. */
export const MANDATE_AMOUNT_MAX = 1_000_000_000;
const METADATA_MAX_CHARS = 4096;

const id = text(128);

export const IntentMandateSignBody = z
  .object({
    product_id: text(256).meta({ description: 'The product the mandate authorizes.' }),
    amount_limit: money(MANDATE_AMOUNT_MAX, 'Highest amount the holder may spend, in major units of currency.'),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'an upper-case ISO 4217 code, e.g. USD')
      .default('USD')
      .meta({ description: 'ISO 4217 currency code (upper case); default USD.' }),
    intent_id: id.optional().meta({ description: 'The intent this mandate belongs to, if any.' }),
    merchant_id: id.optional().meta({ description: 'Restricts the mandate to one merchant, if given.' }),
    expires_in_s: z
      .number()
      .int()
      .min(MANDATE_TTL_MIN_S)
      .max(MANDATE_TTL_MAX_S)
      .default(MANDATE_TTL_DEFAULT_S)
      .meta({ description: 'Lifetime in seconds (60 to 604800); default 3600.' }),
    metadata: z
      .record(z.string(), z.unknown())
      .refine((m) => JSON.stringify(m).length <= METADATA_MAX_CHARS, `at most ${METADATA_MAX_CHARS} characters of JSON`)
      .optional()
      .meta({ description: 'Free-form JSON object (at most 4096 characters), signed with the rest of the payload.' }),
  })
  // A member the schema did not know would be dropped and so left unsigned while the caller believes
  // it part of the mandate: strict, so it is refused (400 invalid_body naming it) and the document
  // says `additionalProperties: false`.
  .strict()
  .superRefine(atLeastOneMinorUnit('amount_limit'))
  .meta({
    id: 'IntentMandateSignBody',
    description: 'Unknown members are refused (400 invalid_body), so nothing the caller sent goes unsigned.',
  });

export type IntentMandateSignInput = z.infer<typeof IntentMandateSignBody>;

export const IntentMandatePayload = z
  .object({
    type: z.literal('intent_mandate'),
    version: z.literal(1),
    mandate_id: z.string(),
    issuer: z.string().meta({ description: 'Public base URL of the gateway that signed it.' }),
    developer_id: z.string().meta({ description: 'Developer account of the API key that requested it.' }),
    product_id: z.string(),
    amount_limit: z.number(),
    currency: z.string(),
    intent_id: z.string().optional(),
    merchant_id: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    issued_at: isoDateTime,
    expires_at: isoDateTime,
    nonce: z.string().meta({ description: 'Random, so two mandates never share a payload.' }),
  })
  .meta({ id: 'IntentMandatePayload', description: 'What is signed, before canonicalization.' });

export type IntentMandatePayload = z.infer<typeof IntentMandatePayload>;

export const IntentMandate = z
  .object({
    mandate_id: z.string(),
    payload: IntentMandatePayload,
    canonical_payload: z.string().meta({ description: 'RFC 8785 canonical JSON of payload: the exact bytes (UTF-8) that are signed.' }),
    signature: z.string().meta({
      description: 'base64url RSA-SHA256 (PKCS#1 v1.5) signature over canonical_payload; verify with openssl dgst -sha256 -verify.',
    }),
    jws: z
      .string()
      .meta({ description: 'Compact RS256 JWS whose payload is canonical_payload; verify with the key from /.well-known/jwks.json.' }),
    alg: z.literal('RS256'),
    kid: z.string().meta({ description: 'Key id of the signing key in /.well-known/jwks.json.' }),
    jwks_uri: z.string().meta({ description: 'Where the public key is published.' }),
    issued_at: isoDateTime,
    expires_at: isoDateTime,
  })
  .meta({ id: 'IntentMandate', description: 'A signed intent mandate.' });

export type IntentMandate = z.infer<typeof IntentMandate>;

export const IntentMandateSignResponse = z.object({ mandate: IntentMandate }).meta({ id: 'IntentMandateSignResponse' });

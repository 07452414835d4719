import { z } from 'zod';
import { isoDateTime, text } from './common';

/** Scopes an API key may carry (docs/CONTRACT.md#credentials). `*` grants all of them. */
export const API_KEY_SCOPES = [
  'recommend',
  'intents',
  'proposals',
  'match',
  'payments',
  'checkout',
  'runtime',
  'experience',
  'registry',
  'reports',
] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/**
 * What an email address is here, as one pattern the document publishes verbatim: dot-separated
 * atoms of letters, digits and `_ ' + -` before the `@`, a domain of labels and a letters-only top
 * level after it. No surrounding blanks: what the schema refuses, the service refuses.
 */
export const EMAIL = /^[A-Za-z0-9_'+-]+(?:\.[A-Za-z0-9_'+-]+)*@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;
const email = z.string().max(254).regex(EMAIL, 'not an email address').meta({ description: 'An email address (the pattern says which).' });

export const DeveloperRegisterBody = z
  .strictObject({
    display_name: text(120),
    contact_email: email,
    password: z.string().min(8).max(256),
    company: z.string().max(200).trim().optional(),
    website: z.string().url().max(2048).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    invite_code: text(200).optional(),
  })
  .meta({ id: 'DeveloperRegisterRequest' });

export const DeveloperLoginBody = z
  .strictObject({ contact_email: email, password: z.string().min(1).max(256) })
  .meta({ id: 'DeveloperLoginRequest' });

export const InviteVerifyBody = z.strictObject({ invite_code: text(200) }).meta({ id: 'InviteVerifyRequest' });

export const KeyCreateBody = z
  .strictObject({
    label: text(120).optional(),
    scopes: z
      .array(z.enum(['*', ...API_KEY_SCOPES]))
      .min(1)
      .max(API_KEY_SCOPES.length + 1)
      .optional(),
  })
  .meta({ id: 'ApiKeyCreateRequest' });

export const KeyRenameBody = z.strictObject({ label: text(120) }).meta({ id: 'ApiKeyRenameRequest' });

export const LogsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const KeyIdParams = z.object({ keyId: z.string().min(1).max(100) });

export const Developer = z
  .object({
    developer_id: z.string(),
    display_name: z.string(),
    contact_email: z.string(),
    company: z.string().nullable(),
    website: z.string().nullable(),
    status: z.string(),
    invite_verified_at: isoDateTime.nullable(),
    metadata: z.record(z.string(), z.unknown()),
    created_at: isoDateTime.nullable(),
    updated_at: isoDateTime.nullable(),
  })
  .meta({ id: 'Developer' });

export const Session = z
  .object({
    session_id: z.string(),
    developer_id: z.string(),
    status: z.string(),
    expires_at: isoDateTime.nullable(),
    created_at: isoDateTime.nullable(),
    last_used_at: isoDateTime.nullable(),
  })
  .meta({ id: 'DeveloperSession' });

export const ApiKeyRecord = z
  .object({
    key_id: z.string(),
    developer_id: z.string(),
    key_prefix: z.string().meta({ description: 'Shortened display prefix of the key.' }),
    label: z.string().nullable(),
    scopes: z.array(z.string()),
    status: z.enum(['active', 'revoked', 'deleted']),
    last_used_at: isoDateTime.nullable(),
    created_at: isoDateTime.nullable(),
    revoked_at: isoDateTime.nullable(),
    can_reveal: z.boolean(),
  })
  .meta({ id: 'ApiKey' });

export const RequestLogEntry = z
  .object({
    request_id: z.string(),
    key_id: z.string(),
    channel: z.string().nullable(),
    method: z.string(),
    path: z.string(),
    status_code: z.number().int(),
    duration_ms: z.number().int(),
    created_at: isoDateTime,
  })
  .meta({ id: 'RequestLogEntry' });

export const DeveloperAuthResponse = z
  .object({
    status: z.string(),
    developer: Developer,
    developer_token: z.string().meta({ description: 'Console bearer token; shown only here.' }),
    session: Session,
    invite_verified: z.boolean(),
    warning: z.string().optional(),
  })
  .meta({ id: 'DeveloperAuthResponse' });

export const MeResponse = z.object({
  developer: Developer,
  session: Session,
  invite_verified: z.boolean(),
  keys: z.array(ApiKeyRecord),
});

export const InviteVerifyResponse = z.object({ status: z.string(), developer: Developer, invite_verified: z.boolean() });
export const KeyListResponse = z.object({ count: z.number().int(), invite_verified: z.boolean(), keys: z.array(ApiKeyRecord) });
export const KeyCreateResponse = z.object({
  status: z.string(),
  api_key: z.string().meta({ description: 'The full API key. Shown once; store it now.' }),
  key: ApiKeyRecord,
  warning: z.string(),
});
export const KeyResponse = z.object({ status: z.string(), key: ApiKeyRecord });
export const KeyRevealResponse = z.object({ status: z.string(), api_key: z.string(), key: ApiKeyRecord });
export const LogsResponse = z.object({ count: z.number().int(), logs: z.array(RequestLogEntry) });

export type DeveloperView = z.infer<typeof Developer>;
export type SessionView = z.infer<typeof Session>;
export type ApiKeyView = z.infer<typeof ApiKeyRecord>;

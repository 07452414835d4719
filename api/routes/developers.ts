import * as S from '../../src/schemas/console';
import { loginDeveloper, registerDeveloper, verifyInvite, type ConsoleDeps } from '../../src/console/developers';
import { createApiKey, deleteApiKey, listApiKeys, renameApiKey, revealApiKey, revokeApiKey } from '../../src/console/api-keys';
import { listRequestLogs } from '../../src/console/request-logs';
import { apiKeyView, developerView, sessionView } from '../../src/console/views';
import type { Developer, DeveloperSession } from '../../src/db/schema';
import type { AppContext } from '../context';
import { requestResourceId } from '../middleware/idempotency';
import { auth, type RouteRegistry } from './registry';

const TAG = 'Developer console';

function consoleDeps(ctx: AppContext): ConsoleDeps {
  const { db, config } = ctx.deps;
  return {
    db,
    inviteCodes: config.INVITE_CODES,
    sessionTtlSeconds: config.DEVELOPER_SESSION_TTL_S,
    keyEncryptionKey: config.KEY_ENCRYPTION_KEY,
  };
}

/** The developer and session proven by `requireDeveloper`. */
function me(ctx: AppContext) {
  return { developer: ctx.state.developer!, session: ctx.state.session! };
}

const keyNotFound: [number, string, string] = [404, 'api_key_not_found', 'API key not found.'];

/** The register and login answer: the account, its new console session and the token for it. */
function sessionOpened(status: string, r: { developer: Developer; token: string; session: DeveloperSession; warning?: string }) {
  return {
    status,
    developer: developerView(r.developer),
    developer_token: r.token,
    session: sessionView(r.session),
    invite_verified: r.developer.invite_verified_at !== null,
    ...(r.warning ? { warning: r.warning } : {}),
  };
}

export function developerRoutes(r: RouteRegistry): void {
  r.add({
    method: 'post',
    path: '/v1/developers/register',
    tag: TAG,
    summary: 'Register a developer account',
    description:
      'Creates the account and a console session. A valid invite_code verifies the invite at once; it may instead be verified after login.',
    auth: auth.none,
    body: S.DeveloperRegisterBody,
    bodyRequired: true,
    responses: { 201: { description: 'Account created.', schema: S.DeveloperAuthResponse } },
    errors: [[409, 'account_exists', 'A developer account already exists for this email.']],
    handler: async (ctx, { body }) => ({
      status: 201,
      body: sessionOpened('registered', await registerDeveloper(consoleDeps(ctx), body)),
    }),
  });

  r.add({
    method: 'post',
    path: '/v1/developers/login',
    tag: TAG,
    summary: 'Log in to the developer console',
    auth: auth.none,
    body: S.DeveloperLoginBody,
    bodyRequired: true,
    responses: { 200: { description: 'Logged in; a new console session.', schema: S.DeveloperAuthResponse } },
    errors: [[401, 'invalid_credentials', 'Invalid email or password.']],
    handler: async (ctx, { body }) => ({
      body: sessionOpened('logged_in', await loginDeveloper(consoleDeps(ctx), body.contact_email, body.password)),
    }),
  });

  r.add({
    method: 'get',
    path: '/v1/developers/me',
    tag: TAG,
    summary: 'Current developer, session and keys',
    auth: auth.developer,
    responses: { 200: { description: 'The signed-in developer.', schema: S.MeResponse } },
    handler: async (ctx) => {
      const { developer, session } = me(ctx);
      const keys = await listApiKeys(ctx.deps.db, developer.developer_id);
      return {
        body: {
          developer: developerView(developer),
          session: sessionView(session),
          invite_verified: developer.invite_verified_at !== null,
          keys: keys.map(apiKeyView),
        },
      };
    },
  });

  r.add({
    method: 'post',
    path: '/v1/developers/invite/verify',
    tag: TAG,
    summary: 'Verify an invite code',
    auth: auth.developer,
    body: S.InviteVerifyBody,
    bodyRequired: true,
    responses: { 200: { description: 'Invite verified.', schema: S.InviteVerifyResponse } },
    errors: [[403, 'invalid_invite_code', 'The invite code is not valid.']],
    handler: async (ctx, { body }) => {
      const developer = await verifyInvite(consoleDeps(ctx), me(ctx).developer, body.invite_code);
      return { body: { status: 'verified', developer: developerView(developer), invite_verified: true } };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/developers/keys',
    tag: TAG,
    summary: 'List API keys',
    description: 'Active and revoked keys of the developer, newest first. Deleted keys are kept for audit but not listed.',
    auth: auth.developer,
    responses: { 200: { description: 'The keys.', schema: S.KeyListResponse } },
    handler: async (ctx) => {
      const { developer } = me(ctx);
      const keys = await listApiKeys(ctx.deps.db, developer.developer_id);
      return { body: { count: keys.length, invite_verified: developer.invite_verified_at !== null, keys: keys.map(apiKeyView) } };
    },
  });

  r.add({
    method: 'post',
    path: '/v1/developers/keys',
    tag: TAG,
    summary: 'Create an API key',
    description:
      'Returns the full api_key once. The service stores its hash for authentication and, when encrypted key storage is configured, an AES-256-GCM copy for reveal. With Idempotency-Key a retry answers the same key (a retry after the first run died before answering gets the same key id with a fresh secret), never a second key.',
    auth: auth.developer,
    body: S.KeyCreateBody,
    responses: { 201: { description: 'Key created.', schema: S.KeyCreateResponse } },
    errors: [[403, 'invite_verification_required', 'Verify an invite code before creating API keys.']],
    handler: async (ctx, { body }) => {
      const { apiKey, key } = await createApiKey(consoleDeps(ctx), me(ctx).developer, body, requestResourceId(ctx, 'key'));
      return {
        status: 201,
        body: {
          status: 'created',
          api_key: apiKey,
          key: apiKeyView(key),
          warning: key.key_ciphertext
            ? 'Store this key now. It can be revealed again from the console while encrypted key storage holds it.'
            : 'Store this key now. It is stored hash-only and cannot be shown again.',
        },
      };
    },
  });

  r.add({
    method: 'patch',
    path: '/v1/developers/keys/{keyId}',
    tag: TAG,
    summary: 'Rename an API key',
    auth: auth.developer,
    params: S.KeyIdParams,
    notFoundCode: 'api_key_not_found',
    body: S.KeyRenameBody,
    bodyRequired: true,
    responses: { 200: { description: 'Key renamed.', schema: S.KeyResponse } },
    errors: [keyNotFound],
    handler: async (ctx, { params, body }) => {
      const key = await renameApiKey(ctx.deps.db, me(ctx).developer.developer_id, params.keyId, body.label);
      return { body: { status: 'updated', key: apiKeyView(key) } };
    },
  });

  r.add({
    method: 'post',
    path: '/v1/developers/keys/{keyId}/revoke',
    tag: TAG,
    summary: 'Revoke an API key (deprecated)',
    description: 'Deprecated: use DELETE /v1/developers/keys/{keyId}. The key stops authenticating; revoked_at is set.',
    deprecated: true,
    auth: auth.developer,
    params: S.KeyIdParams,
    notFoundCode: 'api_key_not_found',
    responses: { 200: { description: 'Key revoked.', schema: S.KeyResponse } },
    errors: [keyNotFound],
    handler: async (ctx, { params }) => {
      const key = await revokeApiKey(ctx.deps.db, me(ctx).developer.developer_id, params.keyId);
      return { body: { status: 'revoked', key: apiKeyView(key) }, headers: { Deprecation: 'true' } };
    },
  });

  r.add({
    method: 'delete',
    path: '/v1/developers/keys/{keyId}',
    tag: TAG,
    summary: 'Delete an API key',
    description: 'The key stops authenticating immediately; the record is retained for audit and request-log joins.',
    auth: auth.developer,
    params: S.KeyIdParams,
    notFoundCode: 'api_key_not_found',
    responses: { 200: { description: 'Key deleted.', schema: S.KeyResponse } },
    errors: [keyNotFound],
    handler: async (ctx, { params }) => {
      const key = await deleteApiKey(ctx.deps.db, me(ctx).developer.developer_id, params.keyId);
      return { body: { status: 'deleted', key: apiKeyView(key) } };
    },
  });

  r.add({
    method: 'post',
    path: '/v1/developers/keys/{keyId}/reveal',
    tag: TAG,
    summary: 'Reveal the full API key',
    description: 'Decrypts the stored copy. Changes no state.',
    auth: auth.developer,
    params: S.KeyIdParams,
    notFoundCode: 'api_key_not_found',
    responses: { 200: { description: 'The full key.', schema: S.KeyRevealResponse } },
    errors: [keyNotFound, [410, 'key_not_revealable', 'Full key unavailable for older hash-only keys.']],
    handler: async (ctx, { params }) => {
      const { apiKey, key } = await revealApiKey(consoleDeps(ctx), me(ctx).developer.developer_id, params.keyId);
      return { body: { status: 'revealed', api_key: apiKey, key: apiKeyView(key) } };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/developers/logs',
    tag: TAG,
    summary: 'Request logs of your API keys',
    description: 'Newest first.',
    auth: auth.developer,
    query: S.LogsQuery,
    responses: { 200: { description: 'Log entries.', schema: S.LogsResponse } },
    handler: async (ctx, { query }) => {
      // Entries of this process still in the write buffer are flushed first, so a caller sees its own calls.
      await ctx.deps.requestLogs.flush();
      const logs = await listRequestLogs(ctx.deps.db, me(ctx).developer.developer_id, query.limit);
      return {
        body: {
          count: logs.length,
          logs: logs.map((l) => ({
            request_id: l.request_id,
            key_id: l.key_id,
            channel: l.channel,
            method: l.method,
            path: l.path,
            status_code: l.status_code,
            duration_ms: l.duration_ms,
            created_at: l.created_at.toISOString(),
          })),
        },
      };
    },
  });
}

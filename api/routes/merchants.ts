import * as S from '../../src/schemas/merchants';
import {
  checkMerchantToken,
  deactivateMerchant,
  findMerchantByToken,
  getMerchant,
  heartbeatMerchant,
  merchantNotFound,
  merchantView,
  registerMerchant,
  type RegistryDeps,
} from '../../src/registry/merchants';
import { checkMerchantHealth } from '../../src/registry/merchant-health';
import { ucpDiscoverer } from '../../src/registry/ucp-discovery';
import { assessReadiness } from '../../src/registry/readiness';
import { AppError } from '../../src/errors';
import type { Middleware } from 'koa';
import { invalidRegistrationToken, missingRegistrationToken } from '../../src/registry/secrets';
import type { AppContext, AppState } from '../context';
import { requireRegistrationToken } from '../middleware/auth';
import { keyedRequestId } from '../middleware/idempotency';
import { auth, type ErrorRow, type RouteRegistry } from './registry';

const TAG = 'Merchant registry';

export function registryDeps(ctx: AppContext): RegistryDeps {
  const { db, config } = ctx.deps;
  return {
    db,
    allowPrivateEndpoints: config.ALLOW_PRIVATE_ENDPOINTS,
    keyEncryptionKey: config.KEY_ENCRYPTION_KEY,
    discoverUcp: ucpDiscoverer({ allowPrivateEndpoints: config.ALLOW_PRIVATE_ENDPOINTS, timeoutMs: config.DISPATCH_TIMEOUT_MS }),
  };
}

const notFound: ErrorRow = [404, 'merchant_not_found', 'No merchant agent with this id.'];
const tokenErrors: ErrorRow[] = [
  [401, 'missing_registration_token', 'Missing registration token (X-Merchant-Token).'],
  [403, 'invalid_registration_token', 'Invalid registration token.'],
  notFound,
];
const invalidEndpoint: ErrorRow = [
  400,
  'invalid_endpoint',
  'The endpoint is not https or resolves to a private, loopback or link-local address.',
];

/** X-Merchant-Token of the merchant the request names (a path parameter, or `field` of the body). */
export const merchantToken = (idFrom: (ctx: AppContext) => unknown, field = 'merchant_id'): Middleware<AppState> => {
  const check = requireRegistrationToken({
    header: 'x-merchant-token',
    unknownPrincipal: merchantNotFound,
    verify: async (ctx, token) => {
      const id = idFrom(ctx);
      if (id === undefined || id === null || id === '') {
        throw new AppError(400, 'missing_fields', `Missing required field(s): ${field}.`, { fields: [field] });
      }
      if (typeof id !== 'string' || !id.trim()) {
        throw new AppError(400, 'invalid_payload', `Invalid ${field}: expected a non-empty string.`, { fields: [field] });
      }
      return { principalId: id.trim(), result: await checkMerchantToken(ctx.deps.db, id.trim(), token) };
    },
  });
  return (ctx, next) =>
    check(ctx, async () => {
      ctx.state.merchantId = ctx.state.registrationPrincipal;
      await next();
    });
};

/**
 * An X-Merchant-Token the caller may add to a read (docs/TENANCY.md): the merchant it belongs to then
 * also sees what was sent to it (an intent dispatched to it, its own proposals). Absent: the API key
 * alone decides. Present but no merchant's token: 403, as on every merchant route.
 */
export const optionalMerchantToken: Middleware<AppState> = async (ctx, next) => {
  const token = ctx.get('x-merchant-token').trim();
  if (token) {
    const merchantId = await findMerchantByToken(ctx.deps.db, token);
    if (!merchantId) throw invalidRegistrationToken();
    ctx.state.merchantId = merchantId;
  }
  await next();
};
export const optionalMerchantTokenErrors: ErrorRow[] = [
  [403, 'invalid_registration_token', 'X-Merchant-Token is not the registration token of any merchant.'],
];

/**
 * The X-Merchant-Token that makes an API key caller the merchant it belongs to, on reads of what
 * was sent to that merchant (its deliveries): required, whichever merchant it is.
 */
export const callerMerchantToken: Middleware<AppState> = async (ctx, next) => {
  if (!ctx.get('x-merchant-token').trim()) throw missingRegistrationToken('x-merchant-token');
  await optionalMerchantToken(ctx, next);
};
export const callerMerchantTokenErrors: ErrorRow[] = [
  [401, 'missing_registration_token', 'An API key caller did not send X-Merchant-Token.'],
  ...optionalMerchantTokenErrors,
];

/** The body member naming the merchant, read before validation (the token check runs first). */
export const bodyMember = (name: string) => (ctx: AppContext) => (ctx.request as { body?: Record<string, unknown> }).body?.[name];

const envelope = (status: string | undefined, m: Parameters<typeof merchantView>[0]) => ({
  ...(status ? { status } : {}),
  merchant: merchantView(m),
});

export function merchantRoutes(r: RouteRegistry): void {
  r.add({
    method: 'post',
    path: '/v1/merchant/register',
    tag: TAG,
    summary: 'Register or update a merchant agent',
    description:
      "Creates the merchant (created:true) and returns its registration_token and webhook_secret once. Registering an existing merchant_id updates it (created:false) and needs that merchant's X-Merchant-Token. Beyond what the schema states: agent_endpoint must be https and resolve to public addresses only, a DNS answer (400 invalid_endpoint).",
    auth: auth.apiKey('registry'),
    body: S.MerchantRegisterBody,
    bodyRequired: true,
    missingFields: ['merchant_id', 'agent_endpoint'],
    responses: { 200: { description: 'Registered or updated.', schema: S.MerchantRegisterResponse } },
    errors: [
      invalidEndpoint,
      [401, 'missing_registration_token', 'Updating an existing merchant needs its X-Merchant-Token.'],
      [403, 'invalid_registration_token', 'Invalid registration token.'],
      [422, 'ucp_discovery_failed', 'protocol_version ucp: `{agent_endpoint}/.well-known/ucp` could not be read or is not a UCP profile.'],
      [
        422,
        'ucp_version_unsupported',
        'protocol_version ucp: the business offers no UCP version the gateway speaks (2026-04-08, 2026-01-11).',
      ],
    ],
    handler: async (ctx, { body }) => {
      const presented = ctx.get('x-merchant-token').trim() || undefined;
      const reg = await registerMerchant(registryDeps(ctx), body, {
        presentedToken: presented,
        keyId: ctx.state.apiKey?.keyId,
        createdByRequest: keyedRequestId(ctx),
      });
      return {
        body: {
          status: reg.created ? 'registered' : 'updated',
          created: reg.created,
          merchant_id: reg.merchant.merchant_id,
          registration_token: reg.registrationToken,
          webhook_secret: reg.webhookSecret,
          merchant: merchantView(reg.merchant),
        },
      };
    },
  });

  r.add({
    method: 'post',
    path: '/v1/merchant/heartbeat',
    tag: TAG,
    summary: 'Merchant agent heartbeat',
    description: 'Refreshes last_seen_at.',
    auth: auth.apiKeyAnd('registry', 'MerchantToken', merchantToken(bodyMember('merchant_id')), tokenErrors),
    body: S.MerchantHeartbeatBody,
    bodyRequired: true,
    missingFields: ['merchant_id'],
    responses: { 200: { description: 'The refreshed record.', schema: S.MerchantEnvelope } },
    handler: async (ctx, { body }) => ({ body: envelope('ok', await heartbeatMerchant(ctx.deps.db, body.merchant_id)) }),
  });

  r.add({
    method: 'get',
    path: '/v1/merchant/{merchantId}',
    tag: TAG,
    summary: 'Look up a merchant agent',
    auth: auth.apiKey('registry'),
    params: S.MerchantIdParams,
    notFoundCode: 'merchant_not_found',
    responses: { 200: { description: 'The merchant record.', schema: S.MerchantEnvelope } },
    errors: [notFound],
    handler: async (ctx, { params }) => {
      const m = await getMerchant(ctx.deps.db, params.merchantId);
      return { body: envelope(m.status, m) };
    },
  });

  r.add({
    method: 'post',
    path: '/v1/merchant/{merchantId}/deactivate',
    tag: TAG,
    summary: 'Deactivate a merchant agent',
    description: 'Sets status `inactive` and deactivated_at; repeating it keeps the first deactivated_at. Registering again reactivates.',
    auth: auth.apiKeyAnd(
      'registry',
      'MerchantToken',
      merchantToken((ctx) => ctx.params.merchantId),
      tokenErrors,
    ),
    params: S.MerchantIdParams,
    notFoundCode: 'merchant_not_found',
    responses: { 200: { description: 'The deactivated record.', schema: S.MerchantEnvelope } },
    handler: async (ctx, { params }) => ({ body: envelope('inactive', await deactivateMerchant(ctx.deps.db, params.merchantId)) }),
  });

  r.add({
    method: 'get',
    path: '/v1/merchant/{merchantId}/health',
    tag: TAG,
    summary: 'Probe a merchant agent endpoint',
    description:
      'One bounded GET of agent_endpoint (at most 3 s). 2xx or 405 is healthy; otherwise 503 with reason unreachable, timeout, bad_status, inactive or unsafe_endpoint. Every result is stored for SLA reports.',
    auth: auth.apiKey('registry'),
    params: S.MerchantIdParams,
    notFoundCode: 'merchant_not_found',
    responses: {
      200: { description: 'Healthy.', schema: S.MerchantHealth },
      503: { description: 'Unhealthy or unreachable.', schema: S.MerchantUnhealthy },
    },
    errors: [notFound],
    handler: async (ctx, { params }) => {
      const merchant = await getMerchant(ctx.deps.db, params.merchantId);
      const { config } = ctx.deps;
      const h = await checkMerchantHealth(ctx.deps.db, merchant, {
        timeoutMs: config.HEALTH_PROBE_TIMEOUT_MS,
        allowPrivate: config.ALLOW_PRIVATE_ENDPOINTS,
      });
      const checked_at = h.checked_at.toISOString();
      if (h.healthy) {
        return {
          body: { merchant_id: merchant.merchant_id, status: 'healthy', latency_ms: h.latency_ms, http_status: h.http_status, checked_at },
        };
      }
      return {
        status: 503,
        body: {
          error: 'merchant_unhealthy',
          message: h.message,
          merchant_id: merchant.merchant_id,
          status: 'unhealthy',
          reason: h.reason,
          latency_ms: h.latency_ms,
          http_status: h.http_status,
          checked_at,
        },
      };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/merchant/{merchantId}/agent-readiness',
    tag: TAG,
    summary: 'Agent readiness score of a merchant',
    description:
      'Scores four checks of 25 points: workflow context, committed proposal contract, trust evidence policy, MatchToken attribution. next_upgrade names the most valuable missing check.',
    auth: auth.apiKey('registry'),
    params: S.MerchantIdParams,
    notFoundCode: 'merchant_not_found',
    responses: { 200: { description: 'The readiness assessment.', schema: S.AgentReadiness } },
    errors: [notFound],
    handler: async (ctx, { params }) => {
      const m = await getMerchant(ctx.deps.db, params.merchantId);
      return { body: { ...assessReadiness(m), merchant: merchantView(m) } };
    },
  });
}

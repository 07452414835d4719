import type { Middleware } from 'koa';
import { AppError } from '../../src/errors';
import { constantTimeEqual } from '../../src/crypto/tokens';
import { authenticateApiKey, hasScope } from '../../src/console/api-keys';
import { authenticateSession } from '../../src/console/sessions';
import type { ApiKeyScope } from '../../src/schemas/console';
import { invalidRegistrationToken, missingRegistrationToken, type RegistrationTokenHeader } from '../../src/registry/secrets';
import type { AppContext, AppState } from '../context';
import { take } from './rate-limit';
import { bearerToken } from './bearer';

/**
 * One middleware per credential (docs/CONTRACT.md#credentials), composed per route. Each sets what it
 * proved on `ctx.state`; a route lists the ones it needs (API key, developer session token, supply key,
 * merchant or agent registration token) and the OpenAPI security that matches.
 */

const invalidApiKey = () => new AppError(401, 'invalid_api_key', 'A valid API key is required: Authorization: Bearer <API_KEY>.');

async function resolveApiKey(ctx: AppContext, scope?: ApiKeyScope): Promise<void> {
  const token = bearerToken(ctx);
  const looked = ctx.state.apiKeyLookup;
  const principal = !token ? null : looked?.token === token ? looked.principal : await authenticateApiKey(ctx.deps.db, token);
  if (!principal) throw invalidApiKey();
  if (scope && !hasScope(principal, scope)) {
    // Authenticated (so the request is logged) but not allowed.
    ctx.state.apiKey = principal;
    throw new AppError(403, 'insufficient_scope', `This API key lacks the '${scope}' scope.`);
  }
  ctx.state.apiKey = principal;
}

/** An API key (never a developer session token), optionally holding `scope`. */
export function requireApiKey(scope?: ApiKeyScope): Middleware<AppState> {
  return async (ctx, next) => {
    await resolveApiKey(ctx as AppContext, scope);
    await next();
  };
}

/** Recommend channels that answer without an API key (docs/CONTRACT.md#credentials), rate-limited per IP. */
export const PORTAL_DEMO_CHANNELS: ReadonlySet<string> = new Set(['portal_demo']);

/** An API key, except that a request without any bearer on a portal demo channel spends from its IP's demo bucket instead. */
export function requireApiKeyUnlessPortalDemo(scope: ApiKeyScope): Middleware<AppState> {
  return async (ctx, next) => {
    const channel = typeof ctx.query.channel === 'string' ? ctx.query.channel.trim() : '';
    if (!bearerToken(ctx as AppContext) && PORTAL_DEMO_CHANNELS.has(channel)) {
      await take(ctx.deps.limiters.portalDemo, ctx.ip);
      ctx.state.portalDemo = true;
    } else {
      await resolveApiKey(ctx as AppContext, scope);
    }
    await next();
  };
}

/** A live developer console session token (never an API key). */
export const requireDeveloper: Middleware<AppState> = async (ctx, next) => {
  const token = bearerToken(ctx as AppContext);
  const found = token ? await authenticateSession(ctx.deps.db, token, ctx.deps.config.DEVELOPER_SESSION_TTL_S) : null;
  if (!found) {
    throw new AppError(
      401,
      'invalid_developer_token',
      'A valid developer session token is required: Authorization: Bearer <DEVELOPER_TOKEN>.',
    );
  }
  ctx.state.developer = found.developer;
  ctx.state.session = found.session;
  await next();
};

function supplyKeyValid(ctx: AppContext): boolean {
  const expected = ctx.deps.config.SUPPLY_KEY;
  const given = ctx.get('x-supply-key');
  return Boolean(expected && given && constantTimeEqual(given, expected));
}

const invalidSupplyKey = () => new AppError(401, 'invalid_supply_key', 'Invalid or missing X-Supply-Key.');

/** The supply (operator) key. */
export const requireSupplyKey: Middleware<AppState> = async (ctx, next) => {
  if (!supplyKeyValid(ctx as AppContext)) throw invalidSupplyKey();
  ctx.state.supply = true;
  await next();
};

/** Supply key or API key: report and billing operations accept either credential (docs/CONTRACT.md#credentials). */
export function requireSupplyKeyOrApiKey(scope: ApiKeyScope): Middleware<AppState> {
  return async (ctx, next) => {
    if (ctx.get('x-supply-key')) {
      if (!supplyKeyValid(ctx as AppContext)) throw invalidSupplyKey();
      ctx.state.supply = true;
    } else if (bearerToken(ctx as AppContext)) {
      await resolveApiKey(ctx as AppContext, scope);
    } else {
      throw new AppError(401, 'unauthorized', 'Send X-Supply-Key or Authorization: Bearer <API_KEY>.');
    }
    await next();
  };
}

/** Supply key, or API key followed by `then` (a registration-token middleware): the supply key skips `then`. */
export function requireSupplyKeyOrApiKeyAnd(scope: ApiKeyScope, then: Middleware<AppState>): Middleware<AppState> {
  const either = requireSupplyKeyOrApiKey(scope);
  return (ctx, next) => either(ctx, () => (ctx.state.supply ? next() : then(ctx, next)));
}

/**
 * Answers whether `token` is the registration token of the principal the request names
 * (`unknown` when that principal does not exist, so the route can answer its own 404).
 */
export type RegistrationTokenVerifier = (
  ctx: AppContext,
  token: string,
) => Promise<{ principalId: string; result: 'valid' | 'invalid' | 'unknown' }>;

/**
 * A merchant or agent registration token in `X-Merchant-Token` / `X-Agent-Token`. Missing → 401, wrong
 * → 403 (docs/CONTRACT.md#credentials); the verifier compares against the token hash stored for the principal the request
 * names, so merchant A's token never works for merchant B.
 */
export function requireRegistrationToken(opts: {
  header: RegistrationTokenHeader;
  verify: RegistrationTokenVerifier;
  unknownPrincipal: (principalId: string) => AppError;
}): Middleware<AppState> {
  return async (ctx, next) => {
    const token = ctx.get(opts.header).trim();
    if (!token) throw missingRegistrationToken(opts.header);
    const { principalId, result } = await opts.verify(ctx as AppContext, token);
    if (result === 'unknown') throw opts.unknownPrincipal(principalId);
    if (result === 'invalid') throw invalidRegistrationToken();
    ctx.state.registrationPrincipal = principalId;
    await next();
  };
}

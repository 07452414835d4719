import type { Middleware } from 'koa';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { sha256Hex } from '../../src/crypto/tokens';
import { API_KEY_PREFIX, authenticateApiKey } from '../../src/console/api-keys';
import { AppError } from '../../src/errors';
import type { AppContext, AppState } from '../context';
import { bearerToken } from './auth';
import { countRateLimitRejection } from '../../src/metrics/api';

export interface RateLimiters {
  perKey: RateLimiterMemory;
  perIp: RateLimiterMemory;
  /** Keyless recommend calls on the portal demo channel: each writes an intent, proposals and a session. */
  portalDemo: RateLimiterMemory;
  /** Console credential endpoints, each with its own per-IP budget (CONSOLE_AUTH_BUDGETS). */
  register: RateLimiterMemory;
  login: RateLimiterMemory;
  inviteVerify: RateLimiterMemory;
}

export function createRateLimiters(cfg: {
  RATE_LIMIT_PER_KEY: number;
  RATE_LIMIT_PER_IP: number;
  RATE_LIMIT_WINDOW_S: number;
  PORTAL_DEMO_RATE_LIMIT_PER_IP: number;
  REGISTER_RATE_LIMIT_PER_IP: number;
  LOGIN_RATE_LIMIT_PER_IP: number;
  INVITE_VERIFY_RATE_LIMIT_PER_IP: number;
  CONSOLE_RATE_LIMIT_WINDOW_S: number;
}): RateLimiters {
  const consoleBudget = (keyPrefix: string, points: number) => new RateLimiterMemory({ keyPrefix, points, duration: cfg.CONSOLE_RATE_LIMIT_WINDOW_S });
  return {
    portalDemo: new RateLimiterMemory({ keyPrefix: 'demo', points: cfg.PORTAL_DEMO_RATE_LIMIT_PER_IP, duration: cfg.RATE_LIMIT_WINDOW_S }),
    perKey: new RateLimiterMemory({ keyPrefix: 'key', points: cfg.RATE_LIMIT_PER_KEY, duration: cfg.RATE_LIMIT_WINDOW_S }),
    perIp: new RateLimiterMemory({ keyPrefix: 'ip', points: cfg.RATE_LIMIT_PER_IP, duration: cfg.RATE_LIMIT_WINDOW_S }),
    register: consoleBudget('register', cfg.REGISTER_RATE_LIMIT_PER_IP),
    login: consoleBudget('login', cfg.LOGIN_RATE_LIMIT_PER_IP),
    inviteVerify: consoleBudget('invite', cfg.INVITE_VERIFY_RATE_LIMIT_PER_IP),
  };
}

/** Paths that monitoring polls; never limited (the OpenAPI document reads this too). */
export const RATE_LIMIT_EXEMPT_PATHS: ReadonlySet<string> = new Set(['/healthz']);
// GET /metrics never reaches this middleware: the metrics middleware answers it first.

/**
 * Console endpoints that cost an scrypt or test a secret: each spends its own tight per-IP budget
 * on top of the general one, so neither account creation nor password or invite-code guessing can
 * run at the general rate.
 */
export const CONSOLE_AUTH_BUDGETS: ReadonlyMap<string, { limiter: keyof RateLimiters; env: string }> = new Map([
  ['POST /v1/developers/register', { limiter: 'register', env: 'REGISTER_RATE_LIMIT_PER_IP' }],
  ['POST /v1/developers/login', { limiter: 'login', env: 'LOGIN_RATE_LIMIT_PER_IP' }],
  ['POST /v1/developers/invite/verify', { limiter: 'inviteVerify', env: 'INVITE_VERIFY_RATE_LIMIT_PER_IP' }],
] as const);

function tooMany(res: RateLimiterRes): AppError {
  const retryAfter = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return new AppError(429, 'rate_limited', `Too many requests; retry after ${retryAfter} s.`, undefined, {
    'Retry-After': String(retryAfter),
  });
}

export async function take(limiter: RateLimiterMemory, bucket: string, points = 1): Promise<void> {
  try {
    await limiter.consume(bucket, points);
  } catch (res) {
    if (res instanceof RateLimiterRes) {
      countRateLimitRejection(limiter.keyPrefix);
      throw tooMany(res);
    }
    throw res;
  }
}

/**
 * A request whose bearer is a live API key spends from that key's bucket; everything else (no key,
 * a developer token, an API key that does not exist or was deleted) spends from the caller's IP
 * bucket. The key is looked up here, once (authentication reuses the answer), so a made-up
 * `cig_sk_…` token cannot buy itself a fresh bucket: it is charged to the IP like any keyless call,
 * whatever the route, and an IP that has spent its bucket cannot keep guessing keys.
 */
export const rateLimit: Middleware<AppState> = async (ctx, next) => {
  if (RATE_LIMIT_EXEMPT_PATHS.has(ctx.path)) return next();
  const { perKey, perIp } = ctx.deps.limiters;
  const token = bearerToken(ctx as AppContext);
  if (token?.startsWith(API_KEY_PREFIX)) {
    const principal = await authenticateApiKey(ctx.deps.db, token);
    ctx.state.apiKeyLookup = { token, principal };
    if (principal) await take(perKey, sha256Hex(token).slice(0, 32));
    else await take(perIp, ctx.ip);
  } else {
    await take(perIp, ctx.ip);
  }
  const budget = CONSOLE_AUTH_BUDGETS.get(`${ctx.method} ${ctx.path.replace(/\/+$/, '')}`);
  if (budget) await take(ctx.deps.limiters[budget.limiter], ctx.ip);
  await next();
};

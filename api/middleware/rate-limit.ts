import type { Middleware } from 'koa';
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { sha256Hex } from '../../src/crypto/tokens';
import { API_KEY_PREFIX, authenticateApiKey } from '../../src/console/api-keys';
import { AppError } from '../../src/errors';
import { DEFAULT_TASK_QUEUE } from '../../src/temporal/names';
import type { AppContext, AppState, RateLimiters } from '../context';
import { bearerToken } from './bearer';
import { countRateLimitRejection } from '../../src/metrics/api';

/** The table of migration 0027; buckets of every limiter share it (their keys carry the limiter's prefix). */
export const RATE_LIMIT_TABLE = 'rate_limits';

/**
 * The limiters of one API process. With RATE_LIMIT_STORE=postgres (the default) the buckets live in
 * Postgres, so every replica of a deployment spends from the same bucket and N replicas allow the
 * documented limit, not N times it. A deployment is its task queue, as for the Schedules: two
 * deployments sharing one database (or test files sharing one) keep separate buckets.
 *
 * Each Postgres limiter has an in-memory insurance limiter with the same budget: while Postgres
 * cannot answer, limits hold per process (N times the limit across N replicas) instead of failing
 * every request closed or letting a flood through open (docs/DECISIONS.md). A bucket spent in a
 * window is also remembered in memory until the window ends (inMemoryBlockOnConsumed), so a caller
 * that keeps hammering a spent bucket costs no Postgres round trip.
 */
export function createRateLimiters(
  cfg: {
    RATE_LIMIT_PER_KEY: number;
    RATE_LIMIT_PER_IP: number;
    RATE_LIMIT_WINDOW_S: number;
    PORTAL_DEMO_RATE_LIMIT_PER_IP: number;
    REGISTER_RATE_LIMIT_PER_IP: number;
    LOGIN_RATE_LIMIT_PER_IP: number;
    INVITE_VERIFY_RATE_LIMIT_PER_IP: number;
    CONSOLE_RATE_LIMIT_WINDOW_S: number;
    RATE_LIMIT_STORE: 'postgres' | 'memory';
    TEMPORAL_TASK_QUEUE: string;
  },
  pool?: pg.Pool,
): RateLimiters {
  const scope = cfg.TEMPORAL_TASK_QUEUE === DEFAULT_TASK_QUEUE ? '' : `${cfg.TEMPORAL_TASK_QUEUE}:`;
  const limiter = (name: string, points: number, duration: number): RateLimiterAbstract => {
    const keyPrefix = `${scope}${name}`;
    const insuranceLimiter = new RateLimiterMemory({ keyPrefix, points, duration });
    if (cfg.RATE_LIMIT_STORE === 'memory' || !pool) return insuranceLimiter;
    return new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: RATE_LIMIT_TABLE,
      tableCreated: true,
      // Expired rows are deleted by the hourly housekeeping schedule, once per deployment.
      clearExpiredByTimeout: false,
      keyPrefix,
      points,
      duration,
      inMemoryBlockOnConsumed: points,
      insuranceLimiter,
    });
  };
  return {
    portalDemo: limiter('demo', cfg.PORTAL_DEMO_RATE_LIMIT_PER_IP, cfg.RATE_LIMIT_WINDOW_S),
    perKey: limiter('key', cfg.RATE_LIMIT_PER_KEY, cfg.RATE_LIMIT_WINDOW_S),
    perIp: limiter('ip', cfg.RATE_LIMIT_PER_IP, cfg.RATE_LIMIT_WINDOW_S),
    register: limiter('register', cfg.REGISTER_RATE_LIMIT_PER_IP, cfg.CONSOLE_RATE_LIMIT_WINDOW_S),
    login: limiter('login', cfg.LOGIN_RATE_LIMIT_PER_IP, cfg.CONSOLE_RATE_LIMIT_WINDOW_S),
    inviteVerify: limiter('invite', cfg.INVITE_VERIFY_RATE_LIMIT_PER_IP, cfg.CONSOLE_RATE_LIMIT_WINDOW_S),
  };
}

/** Paths that monitoring polls; never limited (the OpenAPI document reads this too). */
export const RATE_LIMIT_EXEMPT_PATHS: ReadonlySet<string> = new Set(['/healthz']);
// GET /metrics never reaches this middleware: the metrics middleware answers it first.

/**
 * Console endpoints that cost an scrypt or test a secret: each spends its own tight per-IP budget
 * on top of the general one, so neither account creation nor password or invite-code guessing can
 * run at the general rate. Keyed by the route's declared method and path: the budget is part of the
 * route's own middleware (routeBudget, mounted by the route registry), so it is spent by every
 * spelling of the path the router accepts for that route (`/V1/DEVELOPERS/LOGIN`, a trailing slash),
 * never looked up by the raw path.
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

export async function take(limiter: RateLimiterAbstract, bucket: string, points = 1): Promise<void> {
  try {
    await limiter.consume(bucket, points);
  } catch (res) {
    if (res instanceof RateLimiterRes) {
      // The limiter's name, without the deployment scope (a bounded label set).
      countRateLimitRejection(limiter.keyPrefix.split(':').at(-1)!);
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
  await next();
};

/** The per-IP budget middleware of a route listed in CONSOLE_AUTH_BUDGETS, if it is one. */
export function routeBudget(method: string, openApiPath: string): Middleware<AppState> | undefined {
  const budget = CONSOLE_AUTH_BUDGETS.get(`${method.toUpperCase()} ${openApiPath}`);
  if (!budget) return undefined;
  return async (ctx, next) => {
    await take(ctx.deps.limiters[budget.limiter], ctx.ip);
    await next();
  };
}

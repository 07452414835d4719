import type { Middleware } from 'koa';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { sha256Hex } from '../../src/crypto/tokens';
import { API_KEY_PREFIX } from '../../src/console/api-keys';
import { AppError } from '../../src/errors';
import type { AppContext, AppState } from '../context';
import { bearerToken } from './auth';
import { countRateLimitRejection } from '../../src/metrics/api';

export interface RateLimiters {
  perKey: RateLimiterMemory;
  perIp: RateLimiterMemory;
  /** Keyless recommend calls on the portal demo channel: each writes an intent, proposals and a session. */
  portalDemo: RateLimiterMemory;
}

export function createRateLimiters(cfg: {
  RATE_LIMIT_PER_KEY: number;
  RATE_LIMIT_PER_IP: number;
  RATE_LIMIT_WINDOW_S: number;
  PORTAL_DEMO_RATE_LIMIT_PER_IP: number;
}): RateLimiters {
  return {
    portalDemo: new RateLimiterMemory({ keyPrefix: 'demo', points: cfg.PORTAL_DEMO_RATE_LIMIT_PER_IP, duration: cfg.RATE_LIMIT_WINDOW_S }),
    perKey: new RateLimiterMemory({ keyPrefix: 'key', points: cfg.RATE_LIMIT_PER_KEY, duration: cfg.RATE_LIMIT_WINDOW_S }),
    perIp: new RateLimiterMemory({ keyPrefix: 'ip', points: cfg.RATE_LIMIT_PER_IP, duration: cfg.RATE_LIMIT_WINDOW_S }),
  };
}

/** Paths that monitoring polls; never limited (the OpenAPI document reads this too). */
export const RATE_LIMIT_EXEMPT_PATHS: ReadonlySet<string> = new Set(['/healthz']);
// GET /metrics never reaches this middleware: the metrics middleware answers it first.

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
 * Requests that present an API key spend from that key's bucket (keyed by the key's hash, no DB
 * lookup); everything else spends from the caller's IP bucket. A failed API-key authentication also
 * costs the IP, and an IP that has spent its bucket that way cannot keep guessing keys.
 */
export const rateLimit: Middleware<AppState> = async (ctx, next) => {
  if (RATE_LIMIT_EXEMPT_PATHS.has(ctx.path)) return next();
  const { perKey, perIp } = ctx.deps.limiters;
  const token = bearerToken(ctx as AppContext);
  if (token?.startsWith(API_KEY_PREFIX)) {
    const ipState = await perIp.get(ctx.ip);
    if (ipState && ipState.remainingPoints <= 0) {
      countRateLimitRejection(perIp.keyPrefix);
      throw tooMany(ipState);
    }
    await take(perKey, sha256Hex(token).slice(0, 32));
    try {
      await next();
    } catch (err) {
      if ((err as { status?: number }).status === 401) await perIp.penalty(ctx.ip, 1).catch(() => {});
      throw err;
    }
    return;
  }
  await take(perIp, ctx.ip);
  await next();
};

import type { ParameterizedContext } from 'koa';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../src/config';
import type { Db } from '../src/db/connect';
import type { Developer, DeveloperSession } from '../src/db/schema';
import type { SemanticTier } from '../src/recommend/semantic';
import type { Logger } from '../src/logger';
import type { SigningKeys } from '../src/crypto/signing-keys';
import type { TemporalHandle } from '../src/temporal/client';
import type { RequestLogWriter } from '../src/console/request-logs';
import type { ApiKeyPrincipal } from '../src/console/api-keys';
import type { CardFactsCache } from '../src/catalog/cards';
import type { FrozenTopCache } from '../src/matching/session-render';
import type { CatalogSnapshotCache } from '../src/recommend/catalog-snapshot';
import type { RecommendationRecorder } from '../src/recommend/record';

/** The API's rate limiters (built by createRateLimiters, api/middleware/rate-limit.ts). */
export interface RateLimiters {
  perKey: RateLimiterAbstract;
  perIp: RateLimiterAbstract;
  /** Keyless recommend calls on the portal demo channel: each writes an intent, proposals and a session. */
  portalDemo: RateLimiterAbstract;
  /** Console credential endpoints, each with its own per-IP budget (CONSOLE_AUTH_BUDGETS, api/middleware/rate-limit.ts). */
  register: RateLimiterAbstract;
  login: RateLimiterAbstract;
  inviteVerify: RateLimiterAbstract;
}

/** Everything a request may need, built once per process and hung on the Koa context. */
export interface AppDeps {
  config: Config;
  db: Db;
  temporal: TemporalHandle | null;
  signingKeys: SigningKeys;
  requestLogs: RequestLogWriter;
  limiters: RateLimiters;
  /** Absent when CARD_CACHE_TTL_S is 0. */
  cardFacts?: CardFactsCache;
  /** What match sessions fix at creation, once read. */
  frozenTops: FrozenTopCache;
  /** Categories, trending products and the catalog merchant's readiness, per process (CARD_CACHE_TTL_S). */
  catalogSnapshots: CatalogSnapshotCache;
  /** Writes recommendations, coalescing concurrent ones into one statement. */
  recommendations: RecommendationRecorder;
  /** The semantic tier of recommendations (SEMANTIC_SEARCH), loaded on the first query that needs it. */
  semantic?: SemanticTier;
  logger: Logger;
}

export interface AppState {
  requestId: string;
  startedAt: number;
  apiKey?: ApiKeyPrincipal;
  developer?: Developer;
  session?: DeveloperSession;
  supply?: boolean;
  /** A keyless call on a portal demo channel of GET /v1/recommend. */
  portalDemo?: boolean;
  /** The id a registration token (X-Merchant-Token / X-Agent-Token) was verified for. */
  registrationPrincipal?: string;
  /** The merchant whose X-Merchant-Token the request proved (it acts and reads as that merchant). */
  merchantId?: string;
  /** The API-key lookup the rate limiter made for this request's bearer, reused by authentication. */
  apiKeyLookup?: { token: string; principal: ApiKeyPrincipal | null };
  /** The Idempotency-Key claim this request holds: `seed` names what it creates (`requestResourceId`). */
  idempotency?: { seed: string; takeover: boolean };
}

declare module 'koa' {
  interface DefaultContext {
    deps: AppDeps;
  }
}

export type AppContext = ParameterizedContext<AppState>;

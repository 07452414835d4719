import type { Server, ServerResponse } from 'node:http';
import type { Config } from '../src/config';
import { dbPool, type Db } from '../src/db/connect';
import type { Logger } from '../src/logger';
import type { SigningKeys } from '../src/crypto/signing-keys';
import type { TemporalHandle } from '../src/temporal/client';
import { RequestLogWriter } from '../src/console/request-logs';
import { createApp } from './app';
import { answerClientErrors } from './client-errors';
import { CardFactsCache } from '../src/catalog/cards';
import { FrozenTopCache } from '../src/matching/session-render';
import type { AppDeps } from './context';
import { createSemanticTier } from '../src/recommend/semantic';
import { createRateLimiters } from './middleware/rate-limit';
import { CatalogSnapshotCache } from '../src/recommend/catalog-snapshot';
import { RecommendationRecorder } from '../src/recommend/record';

export interface RunningApi {
  server: Server;
  url: string;
  deps: AppDeps;
  /**
   * Stops accepting connections, lets in-flight requests finish for up to `graceMs`
   * (SHUTDOWN_GRACE_MS) and cuts off what is left, then flushes buffered request logs.
   */
  close(graceMs?: number): Promise<void>;
}

export function buildAppDeps(parts: {
  config: Config;
  db: Db;
  temporal: TemporalHandle | null;
  signingKeys: SigningKeys;
  logger: Logger;
}): AppDeps {
  return {
    ...parts,
    requestLogs: new RequestLogWriter(parts.db, {
      flushMs: parts.config.REQUEST_LOG_FLUSH_MS,
      onError: (err) => parts.logger.warn({ err }, 'request log flush failed; will retry'),
    }),
    limiters: createRateLimiters(parts.config, dbPool(parts.db)),
    cardFacts: parts.config.CARD_CACHE_TTL_S > 0 ? new CardFactsCache(parts.db, parts.config.CARD_CACHE_TTL_S) : undefined,
    frozenTops: new FrozenTopCache(),
    catalogSnapshots: new CatalogSnapshotCache(parts.config.CARD_CACHE_TTL_S),
    recommendations: new RecommendationRecorder(parts.db),
    semantic: createSemanticTier(parts.config),
  };
}

export async function startApi(deps: AppDeps, opts: { port?: number; host?: string } = {}): Promise<RunningApi> {
  const { app } = createApp(deps);
  const server = app.listen(opts.port ?? deps.config.PORT, opts.host ?? '0.0.0.0');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  // The parser's own refusals (431 on a header overflow…) in the JSON error envelope.
  answerClientErrors(server);
  // While draining, every response closes its connection, so a keep-alive client reconnects (to
  // another replica) for its next request instead of being cut off between two.
  let draining = false;
  server.on('request', (_req, res: ServerResponse) => {
    if (draining) res.shouldKeepAlive = false;
  });
  // Housekeeping (idempotency purge, proposal expiry, missed fan-outs) runs as Temporal Schedules that
  // the worker ensures (src/housekeeping/schedules.ts): once per deployment, not once per replica.
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : deps.config.PORT;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    deps,
    close: async (graceMs = deps.config.SHUTDOWN_GRACE_MS) => {
      draining = true;
      const closed = new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      const grace = setTimeout(() => {
        deps.logger.warn({ graceMs }, 'shutdown grace period over: closing the connections still in flight');
        server.closeAllConnections();
      }, graceMs);
      await closed;
      clearTimeout(grace);
      await deps.requestLogs.close();
    },
  };
}

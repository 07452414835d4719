import type { Server } from 'node:http';
import type { Config } from '../src/config';
import type { Db } from '../src/db/connect';
import type { Logger } from '../src/logger';
import type { SigningKeys } from '../src/crypto/signing-keys';
import type { TemporalHandle } from '../src/temporal/client';
import { RequestLogWriter } from '../src/console/request-logs';
import { purgeExpiredIdempotencyKeys } from '../src/idempotency/store';
import { expireDueProposals } from '../src/matching/proposals';
import { startMissedSurges } from '../src/dispatch/client';
import { createApp } from './app';
import { CardFactsCache } from '../src/catalog/cards';
import { FrozenTopCache } from '../src/matching/session-render';
import type { AppDeps } from './context';
import { createRateLimiters } from './middleware/rate-limit';
import { CatalogSnapshotCache } from '../src/recommend/catalog-snapshot';
import { RecommendationRecorder } from '../src/recommend/record';

export interface RunningApi {
  server: Server;
  url: string;
  deps: AppDeps;
  /** Stops accepting requests, lets in-flight ones finish, then flushes buffered request logs. */
  close(): Promise<void>;
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
    limiters: createRateLimiters(parts.config),
    cardFacts: parts.config.CARD_CACHE_TTL_S > 0 ? new CardFactsCache(parts.db, parts.config.CARD_CACHE_TTL_S) : undefined,
    frozenTops: new FrozenTopCache(),
    catalogSnapshots: new CatalogSnapshotCache(parts.config.CARD_CACHE_TTL_S),
    recommendations: new RecommendationRecorder(parts.db),
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
  // Housekeeping in the background: a failed round is logged and the next one tries again.
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, what: string, task: () => Promise<unknown>) => {
    const timer = setInterval(() => task().catch((err) => deps.logger.warn({ err }, `${what} failed`)), ms);
    timer.unref();
    timers.push(timer);
  };
  // Idempotency records are only replayed for 24 h; drop older ones hourly so the table stays small.
  every(3600_000, 'idempotency purge', () => purgeExpiredIdempotencyKeys(deps.db));
  // Reads apply proposal expiry themselves; the sweep makes it true for rows nobody reads too.
  every(60_000, 'proposal expiry sweep', () => expireDueProposals(deps.db));
  const { temporal } = deps;
  if (temporal) every(30_000, 'surge sweep', () => startMissedSurges(temporal, deps.db, deps.logger));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : deps.config.PORT;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    deps,
    close: async () => {
      timers.forEach(clearInterval);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await deps.requestLogs.close();
    },
  };
}

import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { purgeExpiredIdempotencyKeys } from '../src/idempotency/store';
import { expireDueProposals } from '../src/matching/proposals';
import { startMissedSurges } from '../src/dispatch/client';
import { purgeExpiredRateLimits } from '../src/housekeeping/rate-limits';
import { createLogger } from '../src/logger';
import { startCatalogEmbeddingIfDue } from '../src/catalog-embedding/client';

/**
 * Activities of the housekeeping flows (workflows/housekeeping.ts): one domain call each. The
 * `systemChores` loop also runs the runtime reconciler's pass (activities/runtime-reconciler.ts).
 */
export function createHousekeepingActivities({ db, config }: ActivityDeps) {
  const logger = createLogger(config.LOG_LEVEL, 'worker');
  return {
    purgeExpiredIdempotencyKeys: () => purgeExpiredIdempotencyKeys(db),
    purgeExpiredRateLimits: () => purgeExpiredRateLimits(db),
    expireDueProposals: () => expireDueProposals(db),
    async startMissedSurges(): Promise<number> {
      // The fan-outs go to the queue this worker serves, with the worker's own client.
      const { client, info } = Context.current();
      return startMissedSurges({ client, taskQueue: info.taskQueue }, db, logger);
    },
    /** The catalog-embedding walk's workflow id when the catalog needs one (started now or running), else null. */
    async startCatalogEmbeddingIfDue(): Promise<string | null> {
      const { client, info } = Context.current();
      return startCatalogEmbeddingIfDue(db, { client, taskQueue: info.taskQueue });
    },
  };
}

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;

import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { purgeExpiredIdempotencyKeys } from '../src/idempotency/store';
import { expireDueProposals } from '../src/matching/proposals';
import { startMissedSurges } from '../src/dispatch/client';
import { purgeExpiredRateLimits } from '../src/housekeeping/rate-limits';
import { createLogger } from '../src/logger';

/** Activities of the housekeeping flows (workflows/housekeeping.ts): one domain call each. */
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
  };
}

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;

import type { Db } from '../src/db/connect';
import type { Config } from '../src/config';
import { createDispatchActivities } from './dispatch';
import { createRuntimeActivities } from './runtime';
import { createCheckoutActivities } from './checkout';
import { createReconciliationActivities } from './reconciliation';
import { createHousekeepingActivities } from './housekeeping';

export interface ActivityDeps {
  db: Db;
  config: Config;
}

export const pingActivities = {
  async echo(taskQueue: string): Promise<string> {
    return `worker@${taskQueue}`;
  },
};

/** All activities, built from their dependencies (samples-typescript's dependency-injection pattern). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...pingActivities,
    ...createDispatchActivities(deps),
    ...createRuntimeActivities(deps),
    ...createCheckoutActivities(deps),
    ...createReconciliationActivities(deps),
    ...createHousekeepingActivities(deps),
  };
}

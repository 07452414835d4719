import type { ActivityDeps } from './deps';
import { pingActivities } from './ping';
import { createDispatchActivities } from './dispatch';
import { createRuntimeActivities } from './runtime';
import { createRuntimeReconcilerActivities } from './runtime-reconciler';
import { createCheckoutActivities } from './checkout';
import { createReconciliationActivities } from './reconciliation';
import { createFeedActivities } from './feed-refresh';
import { createHousekeepingActivities } from './housekeeping';
import { createCatalogEmbeddingActivities } from './catalog-embedding';

export { pingActivities };

/** All activities, built from their dependencies (samples-typescript's dependency-injection pattern). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...pingActivities,
    ...createDispatchActivities(deps),
    ...createRuntimeActivities(deps),
    ...createRuntimeReconcilerActivities(deps),
    ...createCheckoutActivities(deps),
    ...createReconciliationActivities(deps),
    ...createFeedActivities(deps),
    ...createHousekeepingActivities(deps),
    ...createCatalogEmbeddingActivities(deps),
  };
}

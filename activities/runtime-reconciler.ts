import type { ActivityDeps } from './deps';
import { reconcileOpenRuntimes } from '../src/runtime/reconcile';

/** The activity of the runtime reconciler (workflows/runtime-reconciler.ts): one pass of src/runtime/reconcile.ts. */
export function createRuntimeReconcilerActivities({ db, config }: ActivityDeps) {
  return {
    reconcileOpenRuntimes: () => reconcileOpenRuntimes(db, config),
  };
}

export type RuntimeReconcilerActivities = ReturnType<typeof createRuntimeReconcilerActivities>;

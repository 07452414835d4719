import * as wf from '@temporalio/workflow';
import type { RuntimeReconcilerActivities } from '../activities/runtime-reconciler';
import type { ReconcilerOutcome } from './runtime-reconciler.shared';
import { statesVersioning } from './versioning';

const activities = wf.proxyActivities<RuntimeReconcilerActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '20 seconds', maximumAttempts: 5 },
});

/**
 * Was started every minute by the `runtime-reconcile` Schedule: closes the commerce runtime rows whose
 * workflow has closed without closing them. The system-chores loop runs its activity now (the
 * `runtimeReconcile` chore, workflows/housekeeping.ts); kept registered so recorded runs replay.
 */
export async function runtimeReconciler(): Promise<ReconcilerOutcome> {
  const r = await activities.reconcileOpenRuntimes();
  wf.setCurrentDetails(`checked ${r.checked} open runtime row(s), closed ${r.closed.length}`);
  return { checked: r.checked, closed: r.closed.length };
}
// Pinned: a sweep of seconds.
statesVersioning('PINNED', runtimeReconciler);

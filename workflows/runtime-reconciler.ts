import * as wf from '@temporalio/workflow';
import type { RuntimeReconcilerActivities } from '../activities/runtime-reconciler';
import type { ReconcilerOutcome } from './runtime-reconciler.shared';
import { statesVersioning } from './versioning';

const activities = wf.proxyActivities<RuntimeReconcilerActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '20 seconds', maximumAttempts: 5 },
});

/**
 * Started every minute by the `runtime-reconcile` Schedule (src/runtime/reconcile.ts): closes the
 * commerce runtime rows whose workflow has closed without closing them.
 */
export async function runtimeReconciler(): Promise<ReconcilerOutcome> {
  const r = await activities.reconcileOpenRuntimes();
  wf.setCurrentDetails(`checked ${r.checked} open runtime row(s), closed ${r.closed.length}`);
  return { checked: r.checked, closed: r.closed.length };
}
// Pinned: a scheduled sweep of seconds; each Schedule tick starts on the current version.
statesVersioning('PINNED', runtimeReconciler);

import * as wf from '@temporalio/workflow';
import type { ReconciliationActivities } from '../activities/reconciliation';
import { windowEnding } from '../src/supply/window';
import type { ReconciliationInput, ReconciliationOutcome, ReconciliationStage } from './reconciliation.shared';
import { flowStage } from './stage';
import { statesVersioning } from './versioning';

const runRecord = wf.proxyActivities<ReconciliationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});
// One attempt is a few seconds at 100,000 orders (docs/RECONCILIATION.md); the activity heartbeats
// every 5 s even inside one long statement, so a dead worker is noticed after 20 s, not 15 minutes.
const matching = wf.proxyActivities<ReconciliationActivities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 3 },
});

/**
 * Platform-affiliate reconciliation (docs/RECONCILIATION.md): record the run → load the
 * platform's orders of the window and match them against the gateway's attributed records → record
 * the outcome. Started daily by the `reconcile-daily` Schedule and on demand by the API.
 */
export async function reconciliation(input: ReconciliationInput): Promise<ReconciliationOutcome> {
  const runId = input.runId ?? `rcn_${wf.uuid4().replaceAll('-', '')}`;
  // Workflow time is replay-safe: a scheduled run's window ends at its (recorded) start.
  const window = windowEnding(input.asOf ? new Date(input.asOf) : new Date(), input.days);
  const stage = flowStage<ReconciliationStage>('queued').set;

  stage('reconciling', `run ${runId}: ${input.source} orders ${window.start} .. ${window.end}`);
  await runRecord.startReconciliationRun({
    runId,
    workflowId: wf.workflowInfo().workflowId,
    trigger: input.trigger,
    source: input.source,
    window,
  });
  try {
    const summary = await matching.reconcileAffiliateOrders({ runId, source: input.source, window });
    await runRecord.finishReconciliationRun({ runId, status: 'completed', summary });
    const d = summary.discrepancies;
    stage(
      'completed',
      `run ${runId}: ${summary.outcomes.matched} matched; ${d.amount_mismatch} amount mismatches, ${d.unmatched_platform_order} unmatched platform orders, ` +
        `${d.unmatched_gateway_record} unmatched gateway records, ${d.duplicate_order} duplicates`,
    );
    return { runId, status: 'completed', window, discrepancies: d };
  } catch (err) {
    if (!(err instanceof wf.ActivityFailure)) throw err;
    const error = err.cause?.message ?? err.message;
    await runRecord.finishReconciliationRun({ runId, status: 'failed', error });
    stage('failed', `run ${runId}: ${error}`);
    return { runId, status: 'failed', window, error };
  }
}
// Pinned: a scheduled run of minutes; each Schedule tick starts on the current version.
statesVersioning('PINNED', reconciliation);

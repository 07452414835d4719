import { WorkflowFailedError } from '@temporalio/client';
import type { Db } from '../db/connect';
import { AppError, temporalUnavailable } from '../errors';
import type { Logger } from '../logger';
import type { TemporalHandle } from '../temporal/client';
import { searchAttributes as SA, workflowIds } from '../temporal/names';
import { waitOnWorkflow } from '../temporal/wait';
import type { ReconciliationWorkflow } from '../../workflows/reconciliation.shared';
import { DEFAULT_ORDER_SOURCE, SourceName } from '../supply/affiliate-orders';
import { isKnownOrderSource } from '../supply/affiliate-orders-source';
import { loadReconciliationRun, newReconciliationRunId, type ReconciliationRunView } from './runs';
import { RECONCILIATION_DAYS } from '../supply/window';

/** How long POST /v1/reconciliation/platform-affiliate/run waits for the run by default, and at most. */
export const DEFAULT_WAIT_S = 60;
export const MAX_WAIT_S = 60;
/** Discrepancies of each kind shown with a run (all of them are stored, up to the per-kind bound). */
export const DISCREPANCIES_SHOWN = 20;

export type ReconciliationStartResult =
  { status: 'finished'; run: ReconciliationRunView } | { status: 'running'; runId: string; noWorker?: boolean };

/**
 * Starts the `reconciliation` workflow and waits for it up to `waitMs`. The workflow id is the run's
 * business key (day or as_of, source, days), so a repeated call while one runs joins it (its run id
 * comes back from the memo); once finished, the next call is a new run.
 */
export async function runReconciliation(
  deps: { db: Db; temporal: TemporalHandle | null; logger: Logger },
  req: { days?: number; source?: string; as_of?: string },
  waitMs: number,
): Promise<ReconciliationStartResult> {
  const { db, temporal } = deps;
  const days = req.days ?? RECONCILIATION_DAYS.default;
  const source = req.source ?? DEFAULT_ORDER_SOURCE;
  if (req.as_of !== undefined && !(Date.parse(req.as_of) <= Date.now()))
    throw new AppError(400, 'invalid_as_of', 'as_of must be an ISO 8601 date-time, not in the future.', { fields: ['as_of'] });
  if (!SourceName.test(source) || !(await isKnownOrderSource(db, source)))
    throw new AppError(
      400,
      'invalid_source',
      `No order source ${source}: nothing was imported under it and no source of that name is registered.`,
      { fields: ['source'] },
    );
  if (!temporal) throw temporalUnavailable('Reconciliation');
  const asOf = req.as_of === undefined ? undefined : new Date(req.as_of).toISOString();
  const runId = newReconciliationRunId();
  let handle;
  try {
    handle = await temporal.client.workflow.start<ReconciliationWorkflow>('reconciliation', {
      workflowId: workflowIds.reconcileOnDemand(asOf, new Date(), source, days),
      taskQueue: temporal.taskQueue,
      args: [{ trigger: 'api', days, source, asOf, runId }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      memo: { run_id: runId },
      typedSearchAttributes: [{ key: SA.FlowStage, value: 'queued' }],
      staticSummary: `Platform-affiliate reconciliation ${runId} (${source}, ${days} d${asOf ? ` to ${asOf}` : ''})`,
    });
  } catch (err) {
    deps.logger.warn({ err }, 'reconciliation could not start');
    throw temporalUnavailable('Reconciliation');
  }
  const waited = await waitOnWorkflow(
    temporal,
    handle.result().catch((err) => {
      if (err instanceof WorkflowFailedError) return null;
      throw err;
    }),
    waitMs,
  );
  const outcome = waited.done ? waited.value : undefined;
  // The run this call joined may be another call's: its id is in the memo.
  const joinedRunId = outcome?.runId ?? String((await handle.describe()).memo?.run_id ?? runId);
  if (!waited.done) return { status: 'running', runId: joinedRunId, noWorker: waited.noWorker };
  return { status: 'finished', run: await loadReconciliationRun(db, joinedRunId, DISCREPANCIES_SHOWN) };
}

import { type Client, type ScheduleOptions } from '@temporalio/client';
import { ensureSchedule } from '../temporal/schedules';
import { perTaskQueue, searchAttributes as SA, workflowIds } from '../temporal/names';
import type { ReconciliationInput } from '../../workflows/reconciliation.shared';
import { DEFAULT_ORDER_SOURCE } from '../supply/affiliate-orders';

/**
 * The daily reconciliation Schedule (docs/RECONCILIATION.md), created at worker start.
 * Schedule ids are namespace-wide while task queues are not: a worker on the default queue owns
 * `reconcile-daily`, any other queue (tests, a second deployment in one namespace) gets its own
 * `reconcile-daily-<task queue>`, so no worker re-points another's schedule at its queue.
 */

export const RECONCILIATION_SCHEDULE_HOUR_UTC = 3;

export const reconciliationScheduleId = (taskQueue: string) => perTaskQueue('reconcile-daily', taskQueue);

function scheduleOptions(taskQueue: string): ScheduleOptions {
  const args: [ReconciliationInput] = [{ trigger: 'schedule', days: 1, source: DEFAULT_ORDER_SOURCE }];
  return {
    scheduleId: reconciliationScheduleId(taskQueue),
    spec: {
      calendars: [
        { hour: RECONCILIATION_SCHEDULE_HOUR_UTC, minute: 0, comment: 'daily, after the platform report of the previous day is imported' },
      ],
      timezone: 'UTC',
    },
    action: {
      type: 'startWorkflow',
      workflowType: 'reconciliation',
      workflowId: workflowIds.reconcileScheduled(taskQueue),
      taskQueue,
      args,
      typedSearchAttributes: [{ key: SA.FlowStage, value: 'queued' }],
      staticSummary: `Daily platform-affiliate reconciliation (${DEFAULT_ORDER_SOURCE}, last 24 h)`,
    },
    // A run still going at the next tick is left alone; a tick missed while the cluster was down runs once on recovery.
    policies: { overlap: 'SKIP', catchupWindow: '1 day', pauseOnFailure: false },
  };
}

/**
 * Creates the schedule, or brings an existing one to this code's spec, action and policies while
 * keeping what operators control (paused or not, notes). Safe to call from every worker start.
 */
export function ensureReconciliationSchedule(client: Client, taskQueue: string): Promise<{ scheduleId: string; created: boolean }> {
  return ensureSchedule(client, scheduleOptions(taskQueue));
}

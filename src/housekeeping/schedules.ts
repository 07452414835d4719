import type { Client, ScheduleOptions } from '@temporalio/client';
import { ensureSchedule } from '../temporal/schedules';
import { perTaskQueue } from '../temporal/names';
import { HOUSEKEEPING_WORKFLOWS } from '../../workflows/housekeeping.shared';

/**
 * The hourly purge's Schedule, created (or brought to this code's spec) at every worker start. Before,
 * each API process ran it on its own timer, so N replicas ran it N times; a Schedule runs it once per
 * deployment, shows every run in the UI and can be triggered from there (docs/OPERATIONS.md). As for
 * `reconcile-daily`, a worker on another task queue gets its own id. The frequent chores run in the
 * system-chores loop instead (src/housekeeping/chores.ts).
 */
export function purgeScheduleId(taskQueue: string): string {
  return perTaskQueue('housekeeping-purge', taskQueue);
}

function scheduleOptions(taskQueue: string): ScheduleOptions {
  const scheduleId = purgeScheduleId(taskQueue);
  return {
    scheduleId,
    spec: { intervals: [{ every: '1 hour' }] },
    action: {
      type: 'startWorkflow',
      workflowType: HOUSEKEEPING_WORKFLOWS.purge,
      // Temporal appends the scheduled time: one run per tick, whichever worker picks it up.
      workflowId: scheduleId,
      taskQueue,
      args: [],
      staticSummary: 'Drops idempotency records past 24 h and spent rate-limit buckets',
    },
    // One at a time; a tick missed while the cluster was down is not caught up (the next one covers it).
    policies: { overlap: 'SKIP', catchupWindow: '1 minute', pauseOnFailure: false },
  };
}

/** Ensures the purge Schedule; safe from every worker start, from any number of workers. */
export function ensurePurgeSchedule(client: Client, taskQueue: string): Promise<{ scheduleId: string; created: boolean }> {
  return ensureSchedule(client, scheduleOptions(taskQueue));
}

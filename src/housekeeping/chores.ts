import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import { perTaskQueue } from '../temporal/names';
import {
  SYSTEM_CHORES_UPDATES,
  SYSTEM_CHORES_WORKFLOW,
  type ChoreResult,
  type SystemChore,
  type SystemChoresState,
} from '../../workflows/housekeeping.shared';

/**
 * The system-chores loop's client (workflows/housekeeping.ts `systemChores`; docs/OPERATIONS.md,
 * "System chores"). The frequent chores (surge sweep, proposal expiry, runtime reconcile, the
 * catalog-embedding check) ran as four Schedules, about 300 runs an hour per task queue that filled
 * operators' workflow list; they run in one long-running loop per task queue instead, with a row of
 * its own every 2 hours and a catalog walk only when the catalog changed (docs/DECISIONS.md).
 */
export function systemChoresWorkflowId(taskQueue: string): string {
  return perTaskQueue('system-chores', taskQueue);
}

/**
 * Starts the loop, or finds it running (every worker boot, any number of workers: one loop). The run
 * id is the running loop's, whichever boot started it.
 */
export async function ensureSystemChores(client: Client, taskQueue: string): Promise<{ workflowId: string; runId: string }> {
  const workflowId = systemChoresWorkflowId(taskQueue);
  const handle = await client.workflow.start(SYSTEM_CHORES_WORKFLOW, {
    workflowId,
    taskQueue,
    args: [],
    workflowIdConflictPolicy: 'USE_EXISTING',
    staticSummary: 'System chores: missed fan-outs, proposal expiry, runtime reconcile, catalog-embedding check',
  });
  return { workflowId, runId: handle.firstExecutionRunId };
}

/** Runs one chore now through the loop (the `runChore` Update) and answers with what it did. */
export function runChore(client: Client, taskQueue: string, chore: SystemChore): Promise<ChoreResult> {
  return client.workflow
    .getHandle(systemChoresWorkflowId(taskQueue))
    .executeUpdate<ChoreResult, [SystemChore]>(SYSTEM_CHORES_UPDATES.runChore, {
      args: [chore],
    });
}

/** Pauses or resumes the loop's timed chores (the `pause` and `resume` Updates). */
export function setSystemChoresPaused(client: Client, taskQueue: string, paused: boolean): Promise<SystemChoresState> {
  return client.workflow
    .getHandle(systemChoresWorkflowId(taskQueue))
    .executeUpdate<SystemChoresState, []>(paused ? SYSTEM_CHORES_UPDATES.pause : SYSTEM_CHORES_UPDATES.resume);
}

/** The Schedules the loop replaced, by id (default task queue: no suffix, as every schedule id). */
export function replacedScheduleIds(taskQueue: string): string[] {
  return ['housekeeping-surge-sweep', 'housekeeping-proposal-expiry', 'runtime-reconcile', 'catalog-embedding'].map((id) =>
    perTaskQueue(id, taskQueue),
  );
}

/** Deletes the replaced Schedules a deployment before this release created, so their runs stop; the ids deleted. */
export async function deleteReplacedSchedules(client: Client, taskQueue: string): Promise<string[]> {
  const deleted: string[] = [];
  for (const id of replacedScheduleIds(taskQueue)) {
    try {
      await client.schedule.getHandle(id).delete();
      deleted.push(id);
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
  }
  return deleted;
}

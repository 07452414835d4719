import type { Client, ScheduleOptions } from '@temporalio/client';
import { ensureSchedule } from '../temporal/schedules';
import { DEFAULT_TASK_QUEUE } from '../temporal/names';
import { HOUSEKEEPING_WORKFLOWS, type HousekeepingChore } from '../../workflows/housekeeping.shared';

/**
 * The housekeeping Schedules, created (or brought to this code's spec) at every worker start. Before,
 * each API process ran these chores on its own timers, so N replicas ran them N times; a Schedule runs
 * each once per deployment, shows every run in the UI and can be triggered from there
 * (docs/OPERATIONS.md). As for `reconcile-daily`, a worker on another task queue gets its own ids.
 */
const CHORES: Record<HousekeepingChore, { slug: string; every: string; summary: string }> = {
  purge: { slug: 'purge', every: '1 hour', summary: 'Drops idempotency records past 24 h and spent rate-limit buckets' },
  proposalExpiry: { slug: 'proposal-expiry', every: '1 minute', summary: 'Marks due proposals expired' },
  surgeSweep: { slug: 'surge-sweep', every: '30 seconds', summary: 'Starts the fan-out of intents stored while Temporal was away' },
};

export const HOUSEKEEPING_CHORES = Object.keys(CHORES) as HousekeepingChore[];

export function housekeepingScheduleId(chore: HousekeepingChore, taskQueue: string): string {
  const id = `housekeeping-${CHORES[chore].slug}`;
  return taskQueue === DEFAULT_TASK_QUEUE ? id : `${id}-${taskQueue}`;
}

function scheduleOptions(chore: HousekeepingChore, taskQueue: string): ScheduleOptions {
  const scheduleId = housekeepingScheduleId(chore, taskQueue);
  return {
    scheduleId,
    spec: { intervals: [{ every: CHORES[chore].every }] },
    action: {
      type: 'startWorkflow',
      workflowType: HOUSEKEEPING_WORKFLOWS[chore],
      // Temporal appends the scheduled time: one run per tick, whichever worker picks it up.
      workflowId: scheduleId,
      taskQueue,
      args: [],
      staticSummary: CHORES[chore].summary,
    },
    // One at a time; a tick missed while the cluster was down is not caught up (the next one covers it).
    policies: { overlap: 'SKIP', catchupWindow: '1 minute', pauseOnFailure: false },
  };
}

/** Ensures every housekeeping Schedule; safe from every worker start, from any number of workers. */
export async function ensureHousekeepingSchedules(client: Client, taskQueue: string): Promise<{ scheduleId: string; created: boolean }[]> {
  const out = [];
  for (const chore of HOUSEKEEPING_CHORES) out.push(await ensureSchedule(client, scheduleOptions(chore, taskQueue)));
  return out;
}

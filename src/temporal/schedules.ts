import { ScheduleAlreadyRunning, type Client, type ScheduleOptions } from '@temporalio/client';

/**
 * Creates a Temporal Schedule, or brings an existing one to this code's spec, action and policies
 * while keeping what operators control (paused or not, notes). Safe to call on every worker start,
 * from any number of workers: the schedule id makes it one per deployment.
 */
export async function ensureSchedule(client: Client, options: ScheduleOptions): Promise<{ scheduleId: string; created: boolean }> {
  try {
    await client.schedule.create(options);
    return { scheduleId: options.scheduleId, created: true };
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  await client.schedule
    .getHandle(options.scheduleId)
    .update((previous) => ({ ...previous, spec: options.spec, action: options.action, policies: options.policies }));
  return { scheduleId: options.scheduleId, created: false };
}

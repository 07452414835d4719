import * as wf from '@temporalio/workflow';

/**
 * The floors bench:load measures its flows against, on a task queue of their own served by
 * bench/floor-worker.ts: nothing but what Temporal itself costs for the shape of each flow.
 */

export const FLOOR_TASK_QUEUE = 'bench-floor';

/** The Update the checkout floor sends, like the checkout's confirm. */
export const floorFinish = wf.defineUpdate<string, [string]>('floorFinish');

/** Start → result: one workflow task, no activity (the floor of a commerce runtime run). */
export async function floorEmpty(message: string): Promise<string> {
  return message;
}

/** Start, one Update, result (the floor of an agentic checkout's create + confirm). */
export async function floorUpdate(): Promise<string> {
  let answer: string | undefined;
  wf.setHandler(floorFinish, (value) => (answer = value));
  if (!(await wf.condition(() => answer !== undefined, '1 minute'))) throw wf.ApplicationFailure.nonRetryable('no Update within a minute');
  return answer!;
}

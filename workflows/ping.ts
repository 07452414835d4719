import * as wf from '@temporalio/workflow';
import type { PingActivities } from '../activities/ping';
import { statesVersioning } from './versioning';

const { echo } = wf.proxyActivities<PingActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/**
 * The smallest round trip through the worker: one workflow task and one activity. It proves a worker
 * is polling the task queue and is the floor that the durable-flow benchmarks are measured against.
 */
export async function ping(message: string): Promise<{ message: string; answeredBy: string }> {
  return { message, answeredBy: await echo(wf.workflowInfo().taskQueue) };
}
// Pinned: a health check of one activity.
statesVersioning('PINNED', ping);

/**
 * The worker for bench/floor-workflows.ts, run by bench:load as a process of its own (so its CPU is
 * counted apart) with the gateway worker's slot and poller settings (worker/run.ts).
 */
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { FLOOR_TASK_QUEUE } from './floor-workflows';

const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
const worker = await Worker.create({
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  taskQueue: FLOOR_TASK_QUEUE,
  workflowsPath: fileURLToPath(new URL('./floor-workflows.ts', import.meta.url)),
  maxConcurrentWorkflowTaskExecutions: 100,
  maxConcurrentWorkflowTaskPolls: 40,
  nonStickyToStickyPollRatio: 0.5,
});
process.once('SIGTERM', () => worker.shutdown());
await worker.run();
await connection.close();

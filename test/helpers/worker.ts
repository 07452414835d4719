import type { Config } from '../../src/config';
import type { Db } from '../../src/db/connect';
import { inject } from 'vitest';
import { createWorker } from '../../worker/run';
import { workflowBundle } from '../../worker/bundle';

/** The run's workflow bundle (test/global-setup.ts), for replaying histories without bundling again. */
export const testWorkflowBundle = () => workflowBundle(inject('workflowBundlePath'), { traced: false });

const workerOn = (config: Config, db: Db) =>
  createWorker({
    address: config.TEMPORAL_ADDRESS!,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    deps: { db, config },
  });

/** Runs a real worker on the config's task queue until `work` settles, then shuts it down. */
export async function withTestWorker<T>(config: Config, db: Db, work: () => Promise<T>): Promise<T> {
  const { worker, close } = await workerOn(config, db);
  try {
    return await worker.runUntil(work());
  } finally {
    await close();
  }
}

/** A real worker on the config's task queue running in the background, for files whose every test needs one. */
export async function startTestWorker(config: Config, db: Db): Promise<{ stop(): Promise<void> }> {
  const { worker, close } = await workerOn(config, db);
  const running = worker.run();
  return {
    stop: async () => {
      worker.shutdown();
      await running;
      await close();
    },
  };
}

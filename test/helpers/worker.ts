import type { Config } from '../../src/config';
import type { Db } from '../../src/db/connect';
import { createWorker } from '../../worker/run';

/** Runs a real worker on the config's task queue until `work` settles, then shuts it down. */
export async function withTestWorker<T>(config: Config, db: Db, work: () => Promise<T>): Promise<T> {
  const { worker, close: closeWorker } = await createWorker({
    address: config.TEMPORAL_ADDRESS!,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    deps: { db, config },
  });
  try {
    return await worker.runUntil(work());
  } finally {
    await closeWorker();
  }
}

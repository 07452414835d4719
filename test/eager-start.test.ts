import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { WorkflowHandle } from '@temporalio/client';
import { connectTemporalWithWorker, type TemporalHandle } from '../src/temporal/client';
import { startRuntime } from '../src/runtime/client';
import { createIntentAndStartSurge } from '../src/dispatch/client';
import { workflowIds } from '../src/temporal/names';
import { createLogger } from '../src/logger';
import { createDb, type Db } from '../src/db/connect';
import { ensureCurrentVersion, type WorkerVersion } from '../src/temporal/versioning';
import { createWorker } from '../worker/run';
import { testConfig } from './helpers/stack';

/**
 * `npm start` runs the API and the worker in one process on one Temporal connection
 * (bin/all-in-one.ts): a run the API starts comes back with its first workflow task and runs on this
 * worker without a trip through the task queue. Checked on what the start call answers, for an
 * unversioned worker and for a versioned one (what `npm start` runs: the start carries the worker's
 * deployment version, and the run is pinned to it).
 */
describe.each([
  { versioning: 'off' as const, what: 'an unversioned worker' },
  { versioning: 'on' as const, what: 'a versioned worker (npm start)' },
])('eager workflow start (API and worker in one process), $what', ({ versioning }) => {
  const config = testConfig({ WORKER_VERSIONING: versioning });
  let db: Db;
  let temporal: TemporalHandle;
  let version: WorkerVersion | undefined;
  let stopWorker: () => Promise<void>;
  const started: Array<Promise<WorkflowHandle & { eagerlyStarted?: boolean }>> = [];

  beforeAll(async () => {
    db = createDb(config.DATABASE_URL!);
    temporal = await connectTemporalWithWorker(config.TEMPORAL_ADDRESS!, config.TEMPORAL_NAMESPACE, config.TEMPORAL_TASK_QUEUE);
    expect(temporal.eagerStart).toBe(true);
    const created = await createWorker({
      address: config.TEMPORAL_ADDRESS!,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      deps: { db, config },
      connection: temporal.eagerStart ? temporal.connection : undefined,
    });
    const { worker, close } = created;
    version = created.version;
    expect(Boolean(version)).toBe(versioning === 'on');
    const running = worker.run();
    // As `npm start` does once its worker polls: the version is made current before the API starts.
    if (version) {
      const promoted = await ensureCurrentVersion({
        client: temporal.client,
        namespace: config.TEMPORAL_NAMESPACE,
        version,
        promote: 'auto',
      });
      expect(promoted.outcome).toBe('promoted');
    }
    stopWorker = async () => {
      worker.shutdown();
      await running;
      await close();
    };
    const start = temporal.client.workflow.start.bind(temporal.client.workflow);
    vi.spyOn(temporal.client.workflow, 'start').mockImplementation(((...args: Parameters<typeof start>) => {
      const handle = start(...args);
      started.push(handle);
      return handle;
    }) as typeof start);
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await stopWorker?.();
    // The worker has let go of the shared connection: it closes now.
    await temporal?.connection.close();
    await db?.destroy();
  });

  /** The deployment version the run is on (none for an unversioned worker). */
  const versionOf = async (workflowId: string) =>
    (await temporal.client.workflow.getHandle(workflowId).describe()).raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion ??
    undefined;

  it('a commerce runtime starts on the worker of its own process and finishes', async () => {
    const deps = { db, temporal, logger: createLogger('silent') };
    const res = await startRuntime(deps, { intent: { raw_query: 'eager start: a sturdy water bottle' } }, {}, 30_000);
    expect(res.status).toBe('completed');
    expect(started).toHaveLength(1);
    const handle = await started[0]!;
    expect(handle.workflowId).toMatch(/^runtime-/);
    expect(handle.eagerlyStarted).toBe(true);
    if (version) expect(await versionOf(handle.workflowId)).toMatchObject(version);
    else expect(await versionOf(handle.workflowId)).toBeUndefined();
  });

  it("an intent's fan-out starts eagerly too", async () => {
    started.length = 0;
    const intent = await createIntentAndStartSurge(
      { db, temporal, logger: createLogger('silent') },
      { raw_query: 'eager start: trail running shoes' },
      {},
    );
    expect(started).toHaveLength(1);
    const handle = await started[0]!;
    expect(handle.workflowId).toBe(workflowIds.surge(intent.intent_id));
    expect(handle.eagerlyStarted).toBe(true);
    await temporal.client.workflow.getHandle(handle.workflowId).result();
    if (version) expect(await versionOf(handle.workflowId)).toMatchObject(version);
  });
});

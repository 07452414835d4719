import { NativeConnection, Worker } from '@temporalio/worker';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import { tracing } from '../src/tracing';
import { createActivities } from '../activities/index';
import type { ActivityDeps } from '../activities/deps';
import { activityMetricsInterceptor } from '../src/metrics/worker';
import { ensureReconciliationSchedule } from '../src/reconciliation/schedule';
import type { TemporalHandle } from '../src/temporal/client';
import { ensureSearchAttributes } from '../src/temporal/search-attributes';
import { deploymentOptions, ensureCurrentVersion, workerVersion, type Promotion, type WorkerVersion } from '../src/temporal/versioning';
import type { Logger } from '../src/logger';
import { ensurePurgeSchedule } from '../src/housekeeping/schedules';
import { deleteReplacedSchedules, ensureSystemChores } from '../src/housekeeping/chores';
import { ensureFeedSchedules } from '../src/feed-refresh/client';
import type { Context as ActivityContext } from '@temporalio/activity';
import { workflowBundle } from './bundle';

export async function createWorker(opts: {
  address: string;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** A connection the process's client shares (eager start, src/temporal/client.ts); it stays open on close. */
  connection?: NativeConnection;
}): Promise<{ worker: Worker; version: WorkerVersion | undefined; close(): Promise<void> }> {
  // Before connecting: a deployment name Temporal would refuse is a configuration error, said as one.
  const version = workerVersion({ ...opts.deps.config, TEMPORAL_TASK_QUEUE: opts.taskQueue });
  const shared = opts.connection;
  const connection = shared ?? (await NativeConnection.connect({ address: opts.address }));
  const traced = tracing();
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    // One version of the task queue's worker deployment (src/temporal/versioning.ts): runs are pinned
    // to the version they started on, so a release needs no patch branches for runs in flight.
    ...(version ? { workerDeploymentOptions: deploymentOptions(version) } : {}),
    workflowBundle: await workflowBundle(opts.deps.config.WORKFLOW_BUNDLE_PATH, { traced: Boolean(traced) }),
    activities: createActivities(opts.deps),
    // Activity latency and outcomes for the worker's /metrics (docs/OPERATIONS.md).
    // With tracing on: activity spans in the workflow's trace, and workflows the activities start
    // (the fan-out's deliveries) carry it on. Workflow spans leave the sandbox through the sink.
    interceptors: {
      activity: [
        activityMetricsInterceptor,
        ...(traced
          ? [
              (ctx: ActivityContext) => ({
                inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
                outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
              }),
            ]
          : []),
      ],
      ...(traced ? { client: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } } : {}),
    },
    // (Only the traced bundle's interceptors call the sink: worker/bundle.ts.)
    ...(traced ? { sinks: { exporter: makeWorkflowExporter(traced.spanProcessor, traced.resource) } } : {}),
    // A fan-out turns one intent into thousands of short delivery runs at once: more pollers and
    // slots than the defaults (10 / 40) keep their workflow tasks moving (docs/BENCHMARKS.md).
    maxConcurrentWorkflowTaskExecutions: 100,
    maxConcurrentWorkflowTaskPolls: 40,
    // Half of the pollers on the task queue itself (the default is a fifth; the rest poll this
    // worker's sticky queue): a runtime's only workflow task and a checkout's first one are new runs'
    // tasks, which only the task queue's pollers take. With 8 of 40, after a burst of new runs, a
    // checkout's create waited up to 10 s for its first task (docs/DECISIONS.md, "Intent.Surge dispatch").
    nonStickyToStickyPollRatio: 0.5,
    maxConcurrentLocalActivityExecutions: 200,
    // On shutdown (SIGTERM): stop polling, let in-flight activities finish for the grace period, then
    // cancel them (their attempt fails and Temporal retries it on another worker); past a further
    // 10 s the worker gives up waiting, so a stuck activity cannot hold the process forever.
    shutdownGraceTime: opts.deps.config.SHUTDOWN_GRACE_MS,
    shutdownForceTime: opts.deps.config.SHUTDOWN_GRACE_MS + 10_000,
  });
  return {
    worker,
    version,
    close: async () => {
      if (!shared) await connection.close();
    },
  };
}

/**
 * The worker side of a deployment, the same for `npm run worker` (worker/main.ts) and `npm start`
 * (bin/all-in-one.ts): the search attributes the flows write, the worker itself, the Schedules that
 * start the scheduled flows (one per active registered feed included), and the task queue's
 * system-chores loop. The caller runs the worker and closes it.
 */
export async function bootWorker(opts: { deps: ActivityDeps; temporal: TemporalHandle }) {
  const { config } = opts.deps;
  const added = await ensureSearchAttributes(opts.temporal.connection, config.TEMPORAL_NAMESPACE);
  const { worker, version, close } = await createWorker({
    address: config.TEMPORAL_ADDRESS!,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    deps: opts.deps,
    // `npm start`: the API's client starts runs on this worker directly (eager start).
    ...(opts.temporal.eagerStart ? { connection: opts.temporal.connection } : {}),
  });
  const schedules = {
    reconciliation: await ensureReconciliationSchedule(opts.temporal.client, config.TEMPORAL_TASK_QUEUE),
    // The hourly purge once per deployment, not per API process.
    purge: await ensurePurgeSchedule(opts.temporal.client, config.TEMPORAL_TASK_QUEUE),
    // Feeds registered before a namespace reset (or whose schedule was deleted by hand) refresh again.
    feeds: await ensureFeedSchedules(opts.temporal.client, opts.deps.db, config.TEMPORAL_TASK_QUEUE),
    // The four Schedules the system-chores loop replaced stop with an upgraded deployment's first boot.
    removed: await deleteReplacedSchedules(opts.temporal.client, config.TEMPORAL_TASK_QUEUE),
  };
  // The frequent chores (missed fan-outs, proposal expiry, runtime reconcile, the catalog-embedding
  // check) in one loop per task queue, however many workers boot (docs/OPERATIONS.md, "System chores").
  const systemChores = await ensureSystemChores(opts.temporal.client, config.TEMPORAL_TASK_QUEUE);
  return {
    worker,
    version,
    close,
    addedSearchAttributes: added,
    schedules,
    systemChores,
    /**
     * Once `worker.run()` has started (the deployment and the version exist after the first poll):
     * make the version current when it should be (src/temporal/versioning.ts), logged. Bounded, never
     * throws; resolves at once for an unversioned worker.
     */
    promoteVersion: (logger: Logger): Promise<Promotion | undefined> =>
      version
        ? ensureCurrentVersion({
            client: opts.temporal.client,
            namespace: config.TEMPORAL_NAMESPACE,
            version,
            promote: config.WORKER_VERSION_PROMOTE,
            logger,
            stillWanted: () => worker.getState() === 'RUNNING' || worker.getState() === 'INITIALIZED',
          })
        : Promise.resolve(undefined),
  };
}

import { loadConfig, ConfigError } from '../src/config';
import { EmbeddingModelError, requireEmbeddingModel } from '../src/embedding/model';
import { startTracing } from '../src/tracing';
import { createDb } from '../src/db/connect';
import { createLogger } from '../src/logger';
import { connectTemporal } from '../src/temporal/client';
import { Runtime } from '@temporalio/worker';
import { freePort } from '../src/net';
import { observeDeliveries, startWorkerMetricsServer } from '../src/metrics/worker';
import { bootWorker } from './run';

/** `npm run worker`: the Temporal worker alone, against DATABASE_URL and TEMPORAL_ADDRESS. */
async function main() {
  const config = loadConfig();
  const missing = (['DATABASE_URL', 'TEMPORAL_ADDRESS'] as const).filter((k) => !config[k]);
  if (missing.length)
    throw new ConfigError(missing.map((k) => `${k}: required by \`npm run worker\` (use \`npm start\` for embedded defaults)`));
  const logger = createLogger(config.LOG_LEVEL, 'worker');
  // The semantic tier's model ships with the deployment (never installed here): a missing or altered
  // model stops the start-up with what to run, not the first query.
  await requireEmbeddingModel();
  // Before any Temporal client or worker is made: they pick their interceptors from it.
  const traced = startTracing('worker');
  if (traced) logger.info('OpenTelemetry tracing on (OTEL_* env)');
  // The SDK's runtime metrics (pollers, slots, task latencies, workflow outcomes) in Prometheus format
  // on a loopback port; the worker's listener serves them with its own. Must precede any connection.
  // (Never the port the worker's own listener is about to take, which is free until it does.)
  let sdkMetricsPort: number | undefined;
  for (let i = 0; config.WORKER_METRICS_PORT && i < 10 && (!sdkMetricsPort || sdkMetricsPort === config.WORKER_METRICS_PORT); i++)
    sdkMetricsPort = await freePort();
  if (sdkMetricsPort) {
    Runtime.install({
      telemetryOptions: {
        metrics: { prometheus: { bindAddress: `127.0.0.1:${sdkMetricsPort}`, countersTotalSuffix: true, useSecondsForDurations: true } },
      },
    });
  }
  const db = createDb(config.DATABASE_URL!, { max: config.DB_POOL_MAX });
  const temporal = await connectTemporal(config.TEMPORAL_ADDRESS!, config.TEMPORAL_NAMESPACE, config.TEMPORAL_TASK_QUEUE);
  const {
    worker,
    version,
    close: closeWorker,
    addedSearchAttributes,
    schedules,
    systemChores,
    promoteVersion,
  } = await bootWorker({
    deps: { db, config },
    temporal,
  });
  if (addedSearchAttributes.length) logger.info({ added: addedSearchAttributes }, 'registered search attributes');
  logger.info(schedules.reconciliation, 'reconciliation schedule in place');
  logger.info(systemChores, 'system chores loop running');
  if (schedules.removed.length) logger.info({ removed: schedules.removed }, 'schedules replaced by the system chores loop removed');
  observeDeliveries(db);
  const metrics = config.WORKER_METRICS_PORT
    ? await startWorkerMetricsServer({
        port: config.WORKER_METRICS_PORT,
        token: config.METRICS_TOKEN,
        sdkMetricsUrl: `http://127.0.0.1:${sdkMetricsPort}/metrics`,
        workerState: () => worker.getState(),
      })
    : undefined;
  if (metrics) logger.info({ url: `${metrics.url}/metrics` }, 'worker metrics listening');
  logger.info(schedules.purge, 'housekeeping purge schedule in place');
  logger.info({ feeds: schedules.feeds.ensured, recreated: schedules.feeds.created.length }, 'feed refresh schedules in place');
  // SIGINT/SIGTERM (the SDK's default shutdown signals) call worker.shutdown(): polling stops, in-flight
  // activities get SHUTDOWN_GRACE_MS to finish, and Worker.run() returns once they have.
  process.once('SIGTERM', () => logger.info({ graceMs: config.SHUTDOWN_GRACE_MS }, 'worker draining'));
  const running = worker.run();
  logger.info(
    {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      address: config.TEMPORAL_ADDRESS,
      ...(version ? { deployment: version.deploymentName, buildId: version.buildId } : { versioning: 'off' }),
    },
    'worker polling',
  );
  // Polling has begun, so the version exists: make it current if it should be (logged either way).
  await Promise.all([running, promoteVersion(logger)]);
  logger.info('worker stopped');
  await metrics?.close();
  await closeWorker();
  await temporal.connection.close();
  await db.destroy();
  await traced?.shutdown();
}

main().catch((err) => {
  console.error(err instanceof ConfigError || err instanceof EmbeddingModelError ? err.message : err);
  process.exit(1);
});

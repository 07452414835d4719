import { loadConfig, ConfigError } from '../src/config';
import { EmbeddingModelError, requireEmbeddingModel } from '../src/embedding/model';
import { startTracing } from '../src/tracing';
import { createDb } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { createLogger } from '../src/logger';
import { loadSigningKeys } from '../src/crypto/signing-keys';
import { connectTemporal } from '../src/temporal/client';
import { buildAppDeps, startApi } from './server';

/** `npm run api`: the HTTP API alone, against DATABASE_URL and TEMPORAL_ADDRESS. */
async function main() {
  const config = loadConfig();
  const missing = (['DATABASE_URL', 'TEMPORAL_ADDRESS'] as const).filter((k) => !config[k]);
  if (missing.length)
    throw new ConfigError(missing.map((k) => `${k}: required by \`npm run api\` (use \`npm start\` for embedded defaults)`));
  const logger = createLogger(config.LOG_LEVEL, 'api');
  // The semantic tier's model ships with the deployment (never installed here): a missing or altered
  // model stops the start-up with what to run, not the first query.
  if (config.SEMANTIC_SEARCH === 'on') await requireEmbeddingModel();
  // Before any Temporal client or worker is made: they pick their interceptors from it.
  const traced = startTracing('api');
  if (traced) logger.info('OpenTelemetry tracing on (OTEL_* env)');
  const signingKeys = await loadSigningKeys(config);
  if (signingKeys.ephemeral) logger.warn('MATCH_TOKEN_SIGNING_KEY unset: using a per-process key; tokens will not verify after a restart');
  if (!config.SUPPLY_KEY) logger.warn('SUPPLY_KEY unset: supply-key operations will answer 401');
  const db = createDb(config.DATABASE_URL!, { max: config.DB_POOL_MAX });
  await migrateToLatest(db);
  const temporal = await connectTemporal(config.TEMPORAL_ADDRESS!, config.TEMPORAL_NAMESPACE, config.TEMPORAL_TASK_QUEUE);
  const api = await startApi(buildAppDeps({ config, db, temporal, signingKeys, logger }));
  logger.info({ url: api.url }, 'api listening');
  // SIGTERM (an orchestrator stopping this replica): stop accepting, let in-flight requests finish
  // within SHUTDOWN_GRACE_MS, then close the Temporal connection and the pools. A second signal exits at once.
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal, graceMs: config.SHUTDOWN_GRACE_MS }, 'api draining');
    await api.close();
    await temporal.connection.close();
    await db.destroy();
    // The spans still batched go out before the exit.
    await traced?.shutdown();
    logger.info('api stopped');
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err instanceof ConfigError || err instanceof EmbeddingModelError ? err.message : err);
  process.exit(1);
});

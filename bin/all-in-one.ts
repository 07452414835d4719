import path from 'node:path';
import { loadConfig, ConfigError } from '../src/config';
import { createDb } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { seedCatalog } from '../src/catalog/seed';
import { createLogger } from '../src/logger';
import { loadSigningKeys } from '../src/crypto/signing-keys';
import { connectTemporalWithWorker } from '../src/temporal/client';
import { startDevServer, type DevServer } from '../src/temporal/dev-server';
import { PROJECT_ROOT } from '../src/temporal/cli';
import { NPM_START_POSTGRES, startEmbeddedPostgres, type EmbeddedDb } from '../src/dev/embedded-postgres';
import { loadOrCreateDevSecrets } from '../src/dev/secrets';
import { isPortFree } from '../src/net';
import { bootWorker } from '../worker/run';
import { buildAppDeps, startApi } from '../api/server';
import { DEMO_AGENT_PORT, startDemoMerchant } from '../api/demo';

const DATA_DIR = path.join(PROJECT_ROOT, '.data');
const EMBEDDED_PG_PORT = NPM_START_POSTGRES.port;
const TEMPORAL_PORT = 7233;
const TEMPORAL_UI_PORT = 8233;

/**
 * `npm start`: the whole gateway on one machine. Whatever is not given by env is started here — an
 * embedded Postgres, the Temporal CLI dev server with its Web UI — then migrations, the worker and
 * the API. Ctrl-C stops everything this process started, in reverse order.
 */
async function main() {
  const stops: Array<() => Promise<unknown>> = [];
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping ...');
    for (const stop of stops.reverse()) await stop().catch((err) => console.error('shutdown step failed:', err));
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  try {
    const secrets = await loadOrCreateDevSecrets(DATA_DIR);
    const generated: string[] = [];
    for (const [k, v] of Object.entries(secrets)) {
      if (!process.env[k]) {
        process.env[k] = v;
        generated.push(k);
      }
    }
    const demo = process.argv.includes('--demo');
    // The demo merchant agent listens on loopback, which only this dev/test switch lets merchants use.
    if (demo) process.env.ALLOW_PRIVATE_ENDPOINTS ??= 'true';
    const env = loadConfig(); // validate early, before starting anything
    const logger = createLogger(env.LOG_LEVEL);

    let embedded: EmbeddedDb | undefined;
    if (!env.DATABASE_URL) {
      if (!(await isPortFree(EMBEDDED_PG_PORT)))
        throw new Error(`port ${EMBEDDED_PG_PORT} (embedded Postgres) is in use; set DATABASE_URL or free it`);
      console.log('starting embedded Postgres under .data/pg ...');
      embedded = await startEmbeddedPostgres({
        dir: path.join(PROJECT_ROOT, NPM_START_POSTGRES.dir),
        port: EMBEDDED_PG_PORT,
        database: NPM_START_POSTGRES.database,
      });
      stops.push(() => embedded!.stop());
      process.env.DATABASE_URL = embedded.url;
    }
    let devServer: DevServer | undefined;
    if (!env.TEMPORAL_ADDRESS) {
      for (const p of [TEMPORAL_PORT, TEMPORAL_UI_PORT]) {
        if (!(await isPortFree(p))) throw new Error(`port ${p} (Temporal dev server) is in use; set TEMPORAL_ADDRESS or free it`);
      }
      console.log('starting Temporal dev server (SQLite under .data/temporal.db) ...');
      devServer = await startDevServer({
        port: TEMPORAL_PORT,
        uiPort: TEMPORAL_UI_PORT,
        dbFile: path.join(DATA_DIR, 'temporal.db'),
        namespace: env.TEMPORAL_NAMESPACE,
        log: (m) => console.log(m),
      });
      stops.push(() => devServer!.stop());
      process.env.TEMPORAL_ADDRESS = devServer.address;
    }
    const config = loadConfig();

    const db = createDb(config.DATABASE_URL!, { max: config.DB_POOL_MAX });
    stops.push(() => db.destroy());
    await migrateToLatest(db);
    if (!(await db.selectFrom('products').select('product_id').limit(1).executeTakeFirst())) {
      const seeded = await seedCatalog(db);
      console.log(`catalog was empty: seeded ${seeded.products} products, ${seeded.creators} creators, ${seeded.videos} videos`);
    }

    // One connection for the API's client and the worker: new runs start on this worker (eager start).
    const temporal = await connectTemporalWithWorker(config.TEMPORAL_ADDRESS!, config.TEMPORAL_NAMESPACE, config.TEMPORAL_TASK_QUEUE);
    stops.push(() => temporal.connection.close());

    const { worker, close: closeWorker, schedules } = await bootWorker({ deps: { db, config }, temporal });
    const schedule = schedules.reconciliation;
    const running = worker.run();
    running.catch((err) => {
      console.error('worker stopped:', err);
      void shutdown(1);
    });
    stops.push(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => {});
      await closeWorker();
    });

    const signingKeys = await loadSigningKeys(config);
    const api = await startApi(buildAppDeps({ config, db, temporal, signingKeys, logger }));
    stops.push(() => api.close());

    let demoLines: string[] = [];
    if (demo) {
      const inviteCode = config.INVITE_CODES[0];
      if (!inviteCode) throw new Error('--demo needs an invite code (INVITE_CODES) to enrol the demo merchant');
      const agent = await startDemoMerchant({ base: api.url, inviteCode, dataDir: DATA_DIR, db });
      stops.push(() => agent.close());
      demoLines = [
        `  Demo         merchant 'demo-merchant' (reference agent on :${DEMO_AGENT_PORT}) answers intents about running, shoes, headphones, coffee, yoga …`,
        `               create one: curl -X POST ${config.publicBaseUrl}/v1/intents -H "authorization: Bearer <API key>" -H 'content-type: application/json' -d '{"raw_query":"running shoes under $150"}'`,
      ];
    }

    const ui = devServer?.uiUrl ?? '(external Temporal: open its own UI)';
    console.log(
      [
        '',
        'Commerce Intent-Matching Gateway is up',
        `  API          ${config.publicBaseUrl}`,
        `  OpenAPI      ${config.publicBaseUrl}/openapi.json`,
        `  Health       ${config.publicBaseUrl}/healthz`,
        `  Temporal UI  ${ui}`,
        `  Temporal     ${config.TEMPORAL_ADDRESS} (namespace ${config.TEMPORAL_NAMESPACE}, task queue ${config.TEMPORAL_TASK_QUEUE})`,
        `  Schedule     ${schedule.scheduleId}: platform-affiliate reconciliation daily at 03:00 UTC (Temporal UI → Schedules → Trigger to run now)`,
        `  Postgres     ${embedded ? 'embedded, .data/pg' : 'DATABASE_URL'}`,
        `  Invite code  ${config.INVITE_CODES.join(', ') || '(none: set INVITE_CODES)'}`,
        `  Supply key   ${config.SUPPLY_KEY ?? '(none: set SUPPLY_KEY)'}`,
        ...demoLines,
        generated.length ? `  Dev secrets  ${generated.join(', ')} from .data/dev-secrets.json` : '',
        'Ctrl-C stops everything.',
        '',
      ]
        .filter((l) => l !== '')
        .join('\n'),
    );
  } catch (err) {
    console.error(err instanceof ConfigError ? err.message : `start failed: ${(err as Error).message ?? err}`);
    await shutdown(1);
  }
}

void main();

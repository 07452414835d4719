import { inject } from 'vitest';
import { spawnUntilReady, type SpawnedProcess } from './spawn';
import { TEST_ENCRYPTION_KEY, type TestApi } from './stack';

export type WorkerProcess = SpawnedProcess;

/**
 * `worker/main.ts` in a child process on the API's task queue, with the API's keys (so a token the
 * worker signs verifies against the JWKS the API publishes). A separate process can be SIGKILLed
 * mid-activity, which an in-process Worker cannot. `readyLine`: what it logs once ready for the test
 * (a versioned worker's `"msg":"worker version` line: it has decided whether its version is current).
 */
export function startWorkerProcess(
  api: Pick<TestApi, 'url' | 'config'>,
  env: Record<string, string> = {},
  readyLine = 'worker polling',
): WorkerProcess {
  return spawnUntilReady('worker/main.ts', readyLine, {
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: api.config.TEMPORAL_TASK_QUEUE,
    KEY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    PUBLIC_BASE_URL: api.url,
    // The run's bundle (test/global-setup.ts): a restarted worker is polling in seconds, not after a bundler run.
    WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
    // No metrics listener on the fixed default port: test files run worker processes side by side.
    WORKER_METRICS_PORT: '0',
    // Unversioned unless the test passes WORKER_VERSIONING=on (test/faults/upgrade.test.ts).
    WORKER_VERSIONING: 'off',
    ...env,
  });
}

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { TEST_ENCRYPTION_KEY, type TestApi } from './stack';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves with the exit code/signal once the process is gone. */
  exited: Promise<unknown>;
  /** Resolves once the worker logged that it polls its task queue (rejects if it exits first). */
  ready: Promise<void>;
  /** The last 8 KiB the process wrote on stderr (why a worker died). */
  stderrTail(): string;
  /** SIGKILL, then wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (graceful drain), SIGKILL after `graceMs`; resolves once it is gone. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * `worker/main.ts` in a child process on the API's task queue, with the API's keys (so a token the
 * worker signs verifies against the JWKS the API publishes). A separate process can be SIGKILLed
 * mid-activity, which an in-process Worker cannot.
 */
export function startWorkerProcess(api: TestApi, env: Record<string, string> = {}): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      LOG_LEVEL: 'info',
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: api.config.TEMPORAL_TASK_QUEUE,
      KEY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      PUBLIC_BASE_URL: api.url,
      // No metrics listener on the fixed default port: test files run worker processes side by side.
      WORKER_METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The SDK logs every state change at INFO on stderr; keep the tail for the error of a worker that dies early.
  let errTail = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    errTail = (errTail + chunk.toString('utf8')).slice(-8192);
  });
  let exitedFlag = false;
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      exitedFlag = true;
      resolve(signal ?? code);
    }),
  );
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      if (out.includes('worker polling')) return;
      out = (out + chunk.toString('utf8')).slice(-65536);
      if (out.includes('worker polling')) resolve();
    });
    void exited.then((how) => reject(new Error(`worker process exited (${String(how)}) before polling:\n${errTail}`)));
  });
  ready.catch(() => undefined); // observed by whoever awaits it
  return {
    child,
    exited,
    ready,
    stderrTail: () => errTail,
    async kill() {
      if (!exitedFlag) child.kill('SIGKILL');
      await exited;
    },
    async stop(graceMs = 10_000) {
      if (exitedFlag) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(t);
    },
  };
}

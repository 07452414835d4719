import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface SpawnedProcess {
  child: ChildProcess;
  /** Resolves with the exit code/signal once the process is gone. */
  exited: Promise<unknown>;
  /** Resolves once the process wrote `readyLine` on stdout (rejects if it exits first). */
  ready: Promise<void>;
  /** The last 8 KiB the process wrote on stderr (why it died). */
  stderrTail(): string;
  /** SIGKILL, then wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (graceful drain), SIGKILL after `graceMs`; resolves once it is gone. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * One entrypoint of the project (`api/main.ts`, `worker/main.ts`) as a child process under tsx, ready
 * once it logs `readyLine`: a real process a test can SIGKILL at a chosen moment and start again.
 * The environment is exactly `env` (plus PATH and HOME), so nothing of the test's own leaks in.
 */
export function spawnUntilReady(entry: string, readyLine: string, env: Record<string, string>): SpawnedProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The Temporal SDK logs every state change at INFO on stderr: keep only the tail, for the error of an early exit.
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
      if (out.includes(readyLine)) return;
      out = (out + chunk.toString('utf8')).slice(-65536);
      if (out.includes(readyLine)) resolve();
    });
    void exited.then((how) => reject(new Error(`${entry} exited (${String(how)}) before "${readyLine}":\n${errTail}`)));
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

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ApiProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<unknown>;
  /** Resolves once the API logged that it listens (rejects if it exits first). */
  ready: Promise<void>;
  /** SIGKILL, then wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM, SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * `api/main.ts` (what `npm run api` runs) in a child process on `port`, so that a test can SIGKILL
 * the API mid-request and start another on the same address, as a crashed and restarted deployment.
 */
export function startApiProcess(port: number, env: Record<string, string>): ApiProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'info', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
      if (out.includes('api listening')) return;
      out = (out + chunk.toString('utf8')).slice(-65536);
      if (out.includes('api listening')) resolve();
    });
    void exited.then((how) => reject(new Error(`api process exited (${String(how)}) before listening:\n${errTail}`)));
  });
  ready.catch(() => undefined);
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    exited,
    ready,
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

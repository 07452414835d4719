import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { findTemporalCli } from './cli';
import { SEARCH_ATTRIBUTE_NAMES } from './names';

export interface DevServerOptions {
  port: number;
  uiPort?: number; // absent → headless
  dbFile: string;
  namespace?: string;
  install?: boolean;
  log?: (m: string) => void;
}

export interface DevServer {
  address: string;
  uiUrl: string | null;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `temporal server start-dev` with the gateway's search attributes and waits until it answers. */
export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const cli = await findTemporalCli({ install: opts.install ?? true, log: opts.log });
  await mkdir(path.dirname(opts.dbFile), { recursive: true });
  const namespace = opts.namespace ?? 'default';
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--db-filename',
    opts.dbFile,
    // WAL with synchronous=normal: survives a crash of any process, and commits without an fsync each
    // (the default journal made every workflow transition wait on the disk: ≈25 deliveries/s).
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=normal',
    '--namespace',
    namespace,
    '--log-level',
    'warn',
    ...SEARCH_ATTRIBUTE_NAMES.flatMap((n) => ['--search-attribute', `${n}=Keyword`]),
    ...(opts.uiPort ? ['--ui-port', String(opts.uiPort)] : ['--headless']),
  ];
  const child = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const address = `127.0.0.1:${opts.port}`;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`temporal dev server exited (${code}): ${stderr.trim()}`))),
  );
  exited.catch(() => {});
  await Promise.race([waitUntilServing(address, namespace, 60_000), exited]);
  const stop = async () => {
    if (child.exitCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
  };
  return { address, uiUrl: opts.uiPort ? `http://127.0.0.1:${opts.uiPort}` : null, process: child, stop };
}

export async function waitUntilServing(address: string, namespace: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const conn = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await conn.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await conn.close();
      }
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`Temporal at ${address} did not become ready: ${(lastError as Error)?.message}`);
}

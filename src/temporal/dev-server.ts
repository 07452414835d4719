import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { findTemporalCli } from './cli';
import { LogTail, ServerStartError } from '../dev/start-failure';
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

/** The dev server migrates its SQLite file and registers its namespace first; past this it is taken as hung. */
const READY_TIMEOUT_MS = 60_000;

/** The dev server's own reason from its stderr: its last `Error: …` line, else its last error-level log line. */
export function devServerReason(lines: string[]): string | undefined {
  for (const re of [/^Error:\s+(.*)$/, /\blevel=(?:ERROR|FATAL)\b.*?\bmsg="?([^"]*)"?/i]) {
    for (const line of [...lines].reverse()) {
      const m = re.exec(line.trim());
      if (m?.[1]) return m[1].trim();
    }
  }
  return undefined;
}

/**
 * Starts `temporal server start-dev` with the gateway's search attributes and waits until it answers.
 * A server that does not come up (it exits, cannot be spawned, or does not answer within 60 s) throws
 * a ServerStartError with its own reason and the last lines of its stderr, and is not left running.
 */
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
  const address = `127.0.0.1:${opts.port}`;
  const stderr = new LogTail();
  const fail = (fallback: string) =>
    new ServerStartError(
      `Temporal dev server (${address}${opts.uiPort ? `, UI port ${opts.uiPort}` : ''}, ${cli})`,
      devServerReason(stderr.last(200)) ?? fallback,
      { source: 'stderr', lines: stderr.last() },
    );
  const child = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  let closed = false;
  child.once('close', () => (closed = true));
  // Exit, or a spawn that failed (ENOENT, EACCES, ENOEXEC: no 'exit' follows): either ends the wait.
  const exited = new Promise<never>((_, reject) => {
    child.once('exit', (code, signal) => reject(new Error(signal ? `killed by ${signal}` : `exited with code ${code}`)));
    child.once('error', (err) => reject(new Error(`cannot run ${cli}: ${err.message}`)));
  });
  exited.catch(() => {});
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
  };
  const waiting = new AbortController();
  try {
    await Promise.race([waitUntilServing(address, namespace, READY_TIMEOUT_MS, waiting.signal), exited]);
  } catch (err) {
    await stop();
    // 'exit' can come before the last of stderr has been read: its last words are what the error quotes.
    if (!closed) await new Promise((r) => (child.once('close', r), setTimeout(r, 1000)));
    throw fail((err as Error).message);
  } finally {
    waiting.abort();
  }
  return { address, uiUrl: opts.uiPort ? `http://127.0.0.1:${opts.uiPort}` : null, process: child, stop };
}

export async function waitUntilServing(address: string, namespace: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline && !signal?.aborted) {
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
  throw new Error(`Temporal at ${address} did not become ready within ${timeoutMs / 1000} s: ${(lastError as Error)?.message}`);
}

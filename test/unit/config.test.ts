import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import { defaultBuildId, gitCommit, promoteCommand, workerVersion } from '../../src/temporal/versioning';

describe('config', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 8080,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'gateway',
      INVITE_CODES: [],
      ALLOW_PRIVATE_ENDPOINTS: false,
      DISPATCH_RETRY_SCHEDULE: [0, 5, 300, 1800, 7200, 18000, 36000],
      MATCH_TOKEN_TTL_S: 1800,
      CHECKOUT_PLAN_TTL_S: 900,
      publicBaseUrl: 'http://127.0.0.1:8080',
    });
  });

  it('parses lists, flags and keys', () => {
    const c = loadConfig({
      INVITE_CODES: ' a, b ,,c ',
      ALLOW_PRIVATE_ENDPOINTS: 'true',
      DISPATCH_RETRY_SCHEDULE: '0,1,2',
      KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      PUBLIC_BASE_URL: 'https://gw.example.com/',
    });
    expect(c.INVITE_CODES).toEqual(['a', 'b', 'c']);
    expect(c.ALLOW_PRIVATE_ENDPOINTS).toBe(true);
    expect(c.DISPATCH_RETRY_SCHEDULE).toEqual([0, 1, 2]);
    expect(c.KEY_ENCRYPTION_KEY).toEqual(Buffer.alloc(32, 7));
    expect(c.publicBaseUrl).toBe('https://gw.example.com');
  });

  it('rejects bad values with a message naming each variable', () => {
    let err: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        KEY_ENCRYPTION_KEY: 'short',
        DISPATCH_RETRY_SCHEDULE: '1,x',
        TEMPORAL_ADDRESS: 'no-port',
        ALLOW_PRIVATE_ENDPOINTS: 'maybe',
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    for (const name of ['PORT', 'KEY_ENCRYPTION_KEY', 'DISPATCH_RETRY_SCHEDULE', 'TEMPORAL_ADDRESS', 'ALLOW_PRIVATE_ENDPOINTS']) {
      expect(message).toContain(name);
    }
    expect(message).toContain('64 hex characters');
  });

  it('treats empty strings as unset', () => {
    const c = loadConfig({ PORT: '', SUPPLY_KEY: '' });
    expect(c.PORT).toBe(8080);
    expect(c.SUPPLY_KEY).toBeUndefined();
  });
});

describe('worker versioning settings', () => {
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'cig-version-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const ROOT = fileURLToPath(new URL('../..', import.meta.url));
  const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

  it('is on by default, promoting itself, one deployment per task queue', () => {
    const c = loadConfig({ TEMPORAL_TASK_QUEUE: 'gw-eu', GIT_COMMIT: 'abc123' });
    expect(c).toMatchObject({ WORKER_VERSIONING: 'on', WORKER_VERSION_PROMOTE: 'auto' });
    expect(c.WORKER_DEPLOYMENT_NAME).toBeUndefined();
    expect(c.WORKER_BUILD_ID).toBeUndefined();
    expect(workerVersion(c)).toEqual({ deploymentName: 'gw-eu', buildId: `${VERSION}+abc123` });
    // Given names win; off is an unversioned worker.
    expect(workerVersion(loadConfig({ WORKER_DEPLOYMENT_NAME: 'gateway-blue', WORKER_BUILD_ID: 'r42' }))).toEqual({
      deploymentName: 'gateway-blue',
      buildId: 'r42',
    });
    expect(workerVersion(loadConfig({ WORKER_VERSIONING: 'off', WORKER_BUILD_ID: 'r42' }))).toBeUndefined();
  });

  it('refuses values Temporal would refuse, naming the variable', () => {
    const bad = (env: Record<string, string>, name: string, words: string) => {
      let err: unknown;
      try {
        loadConfig(env);
      } catch (e) {
        err = e;
      }
      expect(err, name).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toContain(name);
      expect((err as Error).message).toContain(words);
    };
    bad({ WORKER_VERSIONING: 'yes' }, 'WORKER_VERSIONING', 'on');
    bad({ WORKER_VERSION_PROMOTE: 'always' }, 'WORKER_VERSION_PROMOTE', 'manual');
    bad({ WORKER_DEPLOYMENT_NAME: 'gateway.prod' }, 'WORKER_DEPLOYMENT_NAME', "'.'");
    bad({ WORKER_DEPLOYMENT_NAME: 'a:b' }, 'WORKER_DEPLOYMENT_NAME', "':'");
    bad({ WORKER_BUILD_ID: 'r 1' }, 'WORKER_BUILD_ID', 'spaces');
    bad({ WORKER_BUILD_ID: 'x'.repeat(256) }, 'WORKER_BUILD_ID', '255');
    bad({ GIT_COMMIT: 'abc;rm' }, 'GIT_COMMIT', 'letters, digits');
    // A task queue Temporal takes but a deployment name may not be: said when the worker would use it.
    const dotted = loadConfig({ TEMPORAL_TASK_QUEUE: 'gateway.prod' });
    expect(() => workerVersion(dotted)).toThrow(ConfigError);
    expect(() => workerVersion(dotted)).toThrow(/set WORKER_DEPLOYMENT_NAME/);
    expect(workerVersion({ ...dotted, WORKER_DEPLOYMENT_NAME: 'gateway-prod' })?.deploymentName).toBe('gateway-prod');
    expect(workerVersion({ ...dotted, WORKER_VERSIONING: 'off' })).toBeUndefined();
  });

  it('derives the build id: GIT_COMMIT, else the build, else the checkout, else dev', () => {
    // A build: dist/build-info.json beside the compiled code.
    const built = tmp();
    writeFileSync(path.join(built, 'build-info.json'), JSON.stringify({ version: '2.3.4', commit: 'feedc0ffee12' }));
    expect(defaultBuildId(undefined, built)).toBe('2.3.4+feedc0ffee12');
    expect(defaultBuildId('0123abcd', built)).toBe('2.3.4+0123abcd');
    // Source without git: package.json's version, commit unknown.
    const plain = tmp();
    writeFileSync(path.join(plain, 'package.json'), JSON.stringify({ version: '9.9.9' }));
    expect(gitCommit(plain)).toBeUndefined();
    expect(defaultBuildId(undefined, plain)).toBe('9.9.9+dev');
    // A directory with a broken .git is not taken for a checkout.
    const broken = tmp();
    mkdirSync(path.join(broken, '.git'));
    expect(gitCommit(broken)).toBeUndefined();
    // This source tree: its HEAD as git names it when it is a checkout (an unpacked copy has no .git: dev).
    const head = existsSync(path.join(ROOT, '.git'))
      ? execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
      : 'dev';
    expect(head).toMatch(/^([0-9a-f]{12}|dev)$/);
    expect(defaultBuildId(undefined, ROOT)).toBe(`${VERSION}+${head}`);
  });

  it('names the CLI command that promotes a version', () => {
    expect(promoteCommand({ deploymentName: 'gateway', buildId: '0.1.0+abc' }, 'default')).toBe(
      "temporal worker deployment set-current-version --deployment-name gateway --build-id '0.1.0+abc' -y",
    );
    expect(promoteCommand({ deploymentName: 'gateway', buildId: 'r2' }, 'prod')).toContain('--namespace prod');
  });
});

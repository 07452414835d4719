import { inject } from 'vitest';
import type Router from '@koa/router';
import { loadConfig, type Config } from '../../src/config';
import { createDb, type Db } from '../../src/db/connect';
import { createLogger } from '../../src/logger';
import { loadSigningKeys } from '../../src/crypto/signing-keys';
import { connectTemporal, type TemporalHandle } from '../../src/temporal/client';
import { buildAppDeps } from '../../api/server';
import { createApp } from '../../api/app';
import { answerClientErrors } from '../../api/client-errors';
import type { AppState } from '../../api/context';
import type { Server } from 'node:http';

export const TEST_INVITE = 'test-invite-code';
export const TEST_SUPPLY_KEY = 'test-supply-key-0123456789';
export const TEST_ENCRYPTION_KEY = 'a'.repeat(64);

export function testConfig(overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: `test-${Math.random().toString(36).slice(2, 10)}`,
    // In-process workers load the run's bundle (test/global-setup.ts) instead of bundling per file.
    WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
    // Unversioned workers unless a test asks for Worker Versioning (WORKER_VERSIONING=on): a test's
    // worker is the only one on its queue, and the time-skipping server has no deployment APIs.
    WORKER_VERSIONING: 'off',
    INVITE_CODES: TEST_INVITE,
    SUPPLY_KEY: TEST_SUPPLY_KEY,
    KEY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    LOG_LEVEL: 'silent',
    REQUEST_LOG_FLUSH_MS: '50',
    // Test files onboard many developers from one loopback IP; the console budgets get their own tests.
    REGISTER_RATE_LIMIT_PER_IP: '100000',
    LOGIN_RATE_LIMIT_PER_IP: '100000',
    INVITE_VERIFY_RATE_LIMIT_PER_IP: '100000',
    ...overrides,
  });
}

export interface TestApi {
  url: string;
  config: Config;
  db: Db;
  temporal: TemporalHandle | null;
  router: Router<AppState>;
  deps: ReturnType<typeof buildAppDeps>;
  close(): Promise<void>;
}

/** The real Koa app on an ephemeral loopback port, wired to the run's Postgres and Temporal. */
export async function startTestApi(
  opts: {
    env?: Record<string, string | undefined>;
    withTemporal?: boolean;
    db?: Db;
    extraRoutes?: (r: Router<AppState>) => void;
    /** Listen on this port (default: an ephemeral one), e.g. so that PORT, and with it PUBLIC_BASE_URL, is the real address. */
    port?: number;
  } = {},
): Promise<TestApi> {
  const config = testConfig(opts.env);
  const db = opts.db ?? createDb(config.DATABASE_URL!);
  const temporal =
    opts.withTemporal === false
      ? null
      : await connectTemporal(config.TEMPORAL_ADDRESS!, config.TEMPORAL_NAMESPACE, config.TEMPORAL_TASK_QUEUE);
  const deps = buildAppDeps({ config, db, temporal, signingKeys: await loadSigningKeys(config), logger: createLogger('silent') });
  const { app, router } = createApp(deps, { extraRoutes: opts.extraRoutes });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(opts.port ?? 0, '127.0.0.1', () => resolve(s));
  });
  answerClientErrors(server);
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    db,
    temporal,
    router,
    deps,
    close: async () => {
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      await deps.requestLogs.close();
      await temporal?.connection.close();
      if (!opts.db) await db.destroy();
    },
  };
}

import { z } from 'zod';
import { DEFAULT_TASK_QUEUE } from './temporal/names';
import { NPM_START_POSTGRES } from './db/npm-start-postgres';

/**
 * The service's environment contract (docs/CONTRACT.md#environment). These names are public: operators and black-box
 * tests drive the gateway with them, so renaming one is a breaking change.
 */
const csv = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

const bool = z.enum(['1', '0', 'true', 'false', 'yes', 'no', '']).transform((v) => v === '1' || v === 'true' || v === 'yes');

const positiveInt = z.coerce.number().int().positive();

const keyEncryptionKey = z
  .string()
  .refine((s) => decodeKey(s)?.length === 32, {
    message: 'must be 32 bytes, given as 64 hex characters or base64',
  })
  .transform((s) => decodeKey(s) as Buffer);

function decodeKey(s: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(s)) return Buffer.from(s, 'hex');
  const b = Buffer.from(s, 'base64');
  return b.length === 32 ? b : null;
}

const pem = (kind: string) =>
  z
    .string()
    .transform((s) => s.replace(/\\n/g, '\n'))
    .refine((s) => s.includes('-----BEGIN') && s.includes('PRIVATE KEY-----'), {
      message: `must be a PEM ${kind} private key`,
    });

export const envSchema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  DATABASE_URL: z.string().url().optional(),
  /** Query connections per process (plus 4 for the generic-plan search statements). */
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^:\s]+:\d+$/, 'must be host:port')
    .optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default(DEFAULT_TASK_QUEUE),
  TEMPORAL_CLI: z.string().optional(),
  /**
   * `npm start` only (bin/all-in-one.ts): where it keeps what it runs itself (the embedded Postgres's
   * data, the Temporal dev server's SQLite file, the development secrets), relative to the project,
   * and the ports of those servers, for a second copy or a machine where the defaults are taken.
   */
  DEV_DATA_DIR: z.string().min(1).default('.data'),
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).default(NPM_START_POSTGRES.port),
  TEMPORAL_DEV_PORT: z.coerce.number().int().min(1).max(65535).default(7233),
  TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
  SUPPLY_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  INVITE_CODES: csv.default([]),
  KEY_ENCRYPTION_KEY: keyEncryptionKey.optional(),
  MANDATE_SIGNING_KEY: pem('RSA').optional(),
  MATCH_TOKEN_SIGNING_KEY: pem('Ed25519').optional(),
  /**
   * Signs the gateway's requests to UCP businesses and is published in its UCP platform profile
   * (docs/MERCHANTS.md): an EC P-256 or P-384 private key. Without it requests go unsigned, and a
   * business that asks for signatures refuses them.
   */
  UCP_SIGNING_KEY: pem('EC P-256').optional(),
  /**
   * The payment handler a UCP/ACP merchant's session is completed with when the confirm names no
   * payment_credential (its token: the gateway's payment authorization id). Unset: a confirm must name one.
   */
  PROTOCOL_PAYMENT_HANDLER: z.string().trim().min(1).max(200).optional(),
  PUBLIC_BASE_URL: z.string().url().optional(),
  ALLOW_PRIVATE_ENDPOINTS: bool.default(false),
  /** Deadline of one merchant health probe; the issue bounds it at 3 s. */
  HEALTH_PROBE_TIMEOUT_MS: positiveInt.max(3000).default(3000),
  AGENT_CARD_FETCH_TIMEOUT_MS: positiveInt.max(30_000).default(5000),
  /** One fetch of a merchant's feed URL (one-shot import or scheduled refresh): the whole exchange, and the body size. */
  FEED_FETCH_TIMEOUT_MS: positiveInt.max(600_000).default(60_000),
  FEED_MAX_BYTES: positiveInt.max(500 * 1024 * 1024).default(50 * 1024 * 1024),
  DISPATCH_RETRY_SCHEDULE: csv
    .transform((parts) => parts.map(Number))
    .pipe(z.array(z.number().nonnegative()).min(1))
    .default([0, 5, 300, 1800, 7200, 18000, 36000]),
  DISPATCH_TIMEOUT_MS: positiveInt.max(15_000).default(15_000),
  MATCH_TOKEN_TTL_S: positiveInt.default(1800),
  MATCH_SESSION_TTL_S: positiveInt.default(86_400),
  CARD_CACHE_TTL_S: z.coerce.number().int().nonnegative().default(30),
  /** The semantic tier of recommendations (docs/RECOMMEND.md): `off` ranks by the catalog's words alone. */
  SEMANTIC_SEARCH: z.enum(['on', 'off']).default('on'),
  /** Threads of the worker's encoder while it embeds the catalog (the API's query encoder uses one). */
  EMBEDDING_THREADS: positiveInt.max(64).default(1),
  CHECKOUT_PLAN_TTL_S: positiveInt.default(900),
  DEVELOPER_SESSION_TTL_S: positiveInt.default(7 * 24 * 3600),
  RATE_LIMIT_PER_KEY: positiveInt.default(6000),
  RATE_LIMIT_PER_IP: positiveInt.default(600),
  RATE_LIMIT_WINDOW_S: positiveInt.default(60),
  /**
   * Where rate-limit buckets live: `postgres` (shared by every replica of the deployment) or `memory`
   * (per process; N replicas allow N times the limits). api/middleware/rate-limit.ts.
   */
  RATE_LIMIT_STORE: z.enum(['postgres', 'memory']).default('postgres'),
  PORTAL_DEMO_RATE_LIMIT_PER_IP: positiveInt.default(30),
  /** Console credential endpoints: each has its own tight per-IP budget over CONSOLE_RATE_LIMIT_WINDOW_S. */
  REGISTER_RATE_LIMIT_PER_IP: positiveInt.default(10),
  LOGIN_RATE_LIMIT_PER_IP: positiveInt.default(20),
  INVITE_VERIFY_RATE_LIMIT_PER_IP: positiveInt.default(10),
  CONSOLE_RATE_LIMIT_WINDOW_S: positiveInt.default(600),
  REQUEST_LOG_FLUSH_MS: positiveInt.default(250),
  /**
   * On SIGTERM: how long the API lets in-flight requests finish, and the worker its in-flight
   * activities, before cutting them off (docs/OPERATIONS.md). Below a container's stop timeout.
   */
  SHUTDOWN_GRACE_MS: positiveInt.max(600_000).default(20_000),
  /** When set, GET /metrics (API and worker) needs `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * A workflow bundle already built (by `npm run build` or `writeWorkflowBundles`, with its traced twin
   * beside it: worker/bundle.ts) for the worker to load instead of bundling the workflows at start;
   * unset: `dist/workflow-bundle.js` when it exists, else bundle from source.
   */
  WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),
  /**
   * Worker Versioning (src/temporal/versioning.ts, docs/OPERATIONS.md "Worker versions"): the worker is
   * one version (WORKER_BUILD_ID) of a worker deployment (WORKER_DEPLOYMENT_NAME, default the task
   * queue) and a run stays on the version it started on. `off`: an unversioned worker.
   */
  WORKER_VERSIONING: z.enum(['on', 'off']).default('on'),
  WORKER_DEPLOYMENT_NAME: z
    .string()
    .min(1)
    .regex(/^[^.:\s]+$/, "must not contain '.', ':' or spaces (Temporal refuses such a deployment name)")
    .optional(),
  /** Unset: `<package.json version>+<commit>`, the commit from GIT_COMMIT, the build (dist/build-info.json), git, else `dev`. */
  WORKER_BUILD_ID: z.string().max(255).regex(/^\S+$/, 'must not contain spaces').optional(),
  GIT_COMMIT: z
    .string()
    .regex(/^[0-9A-Za-z._-]+$/, 'letters, digits, ".", "_" and "-" only')
    .optional(),
  /** `auto`: a new version makes itself current once it polls; `manual`: an operator promotes it (it only bootstraps a deployment with none). */
  WORKER_VERSION_PROMOTE: z.enum(['auto', 'manual']).default('auto'),
  /** The worker's metrics and health listener (`/metrics`, `/healthz`); 0 turns it off. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Settlement preview fees (docs/REPORTS.md); a merchant's metadata.billing overrides them. */
  BILLING_QUALIFIED_LEAD_FEE_CENTS: z.coerce.number().int().nonnegative().default(50),
  BILLING_ACCEPTED_MATCH_FEE_CENTS: z.coerce.number().int().nonnegative().default(100),
  BILLING_CURRENCY: z
    .string()
    .regex(/^[A-Z]{3}$/, 'ISO 4217 code, e.g. USD')
    .default('USD'),
});

export type Env = z.infer<typeof envSchema>;

export interface Config extends Env {
  publicBaseUrl: string;
}

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid environment:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings mean "unset" so that `FOO= npm start` behaves like leaving FOO out.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([k, v]) => k in envSchema.shape && v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || 'env'}: ${i.message}`));
  }
  const e = parsed.data;
  return {
    ...e,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://127.0.0.1:${e.PORT}`).replace(/\/+$/, ''),
  };
}

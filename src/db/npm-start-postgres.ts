import path from 'node:path';

/* Kept apart from src/dev/embedded-postgres.ts (development only) so that the command-line loaders (production build included) can name it without the dev-only package. */

/** Where `npm start` keeps its embedded Postgres when DATABASE_URL is unset (bin/all-in-one.ts). */
export const NPM_START_POSTGRES = { dir: path.join('.data', 'pg'), port: 54329, database: 'gateway' } as const;

/** The connection string of an embedded server (user and password `postgres`, loopback only). */
export const embeddedDatabaseUrl = (port: number, database: string) => `postgres://postgres:postgres@127.0.0.1:${port}/${database}`;

/**
 * Where `npm start` runs its embedded Postgres under the environment given (DEV_DATA_DIR and
 * EMBEDDED_POSTGRES_PORT, validated by src/config.ts), so the command-line loaders find the same one.
 */
export function npmStartPostgres(projectRoot: string, env: Record<string, string | undefined> = process.env) {
  return {
    dir: path.resolve(projectRoot, env.DEV_DATA_DIR || '.data', 'pg'),
    port: Number(env.EMBEDDED_POSTGRES_PORT) || NPM_START_POSTGRES.port,
    database: NPM_START_POSTGRES.database,
  };
}

import { existsSync } from 'node:fs';
import { embeddedDatabaseUrl, npmStartPostgres } from './npm-start-postgres';
import { PROJECT_ROOT } from '../temporal/cli';
import { createDb, type Db } from './connect';
import { migrateToLatest } from './migrate';

/**
 * What every command-line loader does around its work: the database of DATABASE_URL, else the
 * embedded Postgres of `npm start` when this checkout has one (a fresh clone with `npm start`
 * running needs no URL; exit 2 when there is neither), migrated to the latest schema, closed
 * afterwards whatever happens.
 */
export async function withCliDatabase(work: (db: Db) => Promise<void>): Promise<void> {
  const embedded = npmStartPostgres(PROJECT_ROOT);
  const url = process.env.DATABASE_URL || (existsSync(embedded.dir) ? embeddedDatabaseUrl(embedded.port, embedded.database) : undefined);
  if (!url) {
    console.error(`DATABASE_URL is not set (and there is no embedded Postgres of \`npm start\` under ${embedded.dir})`);
    process.exit(2);
  }
  const db = createDb(url);
  try {
    await migrateToLatest(db);
    await work(db);
  } finally {
    await db.destroy();
  }
}

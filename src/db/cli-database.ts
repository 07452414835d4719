import { createDb, type Db } from './connect';
import { migrateToLatest } from './migrate';

/**
 * What every command-line loader does around its work: the database of DATABASE_URL (exit 2 when
 * unset), migrated to the latest schema, closed afterwards whatever happens.
 */
export async function withCliDatabase(work: (db: Db) => Promise<void>): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL is not set');
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

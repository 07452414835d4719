import { loadConfig } from '../src/config';
import { createDb } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';

const config = loadConfig();
if (!config.DATABASE_URL) {
  console.error('DATABASE_URL is required for `npm run migrate`');
  process.exit(2);
}
const db = createDb(config.DATABASE_URL);
try {
  const applied = await migrateToLatest(db);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await db.destroy();
}

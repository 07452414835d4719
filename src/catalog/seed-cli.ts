import { createDb } from '../db/connect';
import { migrateToLatest } from '../db/migrate';
import { seedCatalog } from './seed';

/** `npm run seed`: migrate, then (re)generate the deterministic catalog. SEED / counts come from env. */
async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL is not set');
    process.exit(2);
  }
  const num = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
  const db = createDb(url);
  try {
    await migrateToLatest(db);
    const started = Date.now();
    const counts = await seedCatalog(db, { seed: num('SEED'), products: num('SEED_PRODUCTS'), creators: num('SEED_CREATORS'), videos: num('SEED_VIDEOS') });
    const summary = Object.entries(counts)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ');
    console.log(`catalog seeded in ${((Date.now() - started) / 1000).toFixed(1)} s: ${summary}`);
  } finally {
    await db.destroy();
  }
}

main().catch((err) => {
  console.error(`seed failed: ${(err as Error).message ?? err}`);
  process.exit(1);
});

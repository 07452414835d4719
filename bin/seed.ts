import { withCliDatabase } from '../src/db/cli-database';
import { seedCatalog } from '../src/catalog/seed';

/** `npm run seed`: migrate, then (re)generate the deterministic catalog. SEED / counts come from env. */
async function main() {
  const num = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
  await withCliDatabase(async (db) => {
    const started = Date.now();
    const counts = await seedCatalog(db, {
      seed: num('SEED'),
      products: num('SEED_PRODUCTS'),
      creators: num('SEED_CREATORS'),
      videos: num('SEED_VIDEOS'),
    });
    const summary = Object.entries(counts)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ');
    console.log(`catalog seeded in ${((Date.now() - started) / 1000).toFixed(1)} s: ${summary}`);
  });
}

main().catch((err) => {
  console.error(`seed failed: ${(err as Error).message ?? err}`);
  process.exit(1);
});

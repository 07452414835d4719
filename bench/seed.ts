/**
 * The full-scale seed (docs/BENCHMARKS.md "Catalog seed"): `seedCatalog` with the default counts
 * (20,000 products, 2,000 creators, 50,000 videos) into a freshly migrated scratch database, then
 * RUNS re-seeds over the catalog it wrote (the upserts find every row; `npm run seed` on a seeded
 * database). The floor is the generation alone (`generateCatalog`, Node only, no database), measured
 * in the same run, so the rest is what Postgres and the transfer cost. The load average is reported
 * before and after: on a shared machine it moves the figures more than the code does.
 *
 *   npm run bench:seed [-- --runs 3]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { generateCatalog } from '../src/catalog/generator';
import { seedCatalog } from '../src/catalog/seed';
import { createDb } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { createScratchDatabase } from '../src/dev/scratch-database';
import { machine, percentile } from './harness';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const RUNS = Number(values.runs);
if (!Number.isInteger(RUNS) || RUNS < 1 || RUNS > 50) throw new Error(`--runs must be 1..50, got ${values.runs}`);

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const timed = async (f: () => Promise<unknown> | unknown): Promise<number> => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};

const tmp = await mkdtemp(path.join(os.tmpdir(), 'cig-bench-seed-'));
const database = await createScratchDatabase({ tmpDir: tmp, prefix: 'cig_bench_seed' });
const db = createDb(database.url);
try {
  await migrateToLatest(db);
  const loadBefore = load();

  // The floor: the same catalog generated in Node, nothing written (once to warm up, then RUNS times).
  generateCatalog();
  const generate: number[] = [];
  for (let i = 0; i < RUNS; i++) generate.push(await timed(() => generateCatalog()));

  let counts: Awaited<ReturnType<typeof seedCatalog>> | undefined;
  const fresh = await timed(async () => (counts = await seedCatalog(db)));
  console.log(`fresh seed: ${seconds(fresh)} (${JSON.stringify(counts)})`);
  const reseed: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    reseed.push(await timed(() => seedCatalog(db)));
    console.log(`re-seed ${i + 1}: ${seconds(reseed.at(-1)!)}`);
  }

  // The volume the catalog test checks, so a figure never stands for a smaller catalog.
  const { rows } = await sql<{ products: string; creators: string; videos: string }>`
    select (select count(*) from products) as products, (select count(*) from creators) as creators,
           (select count(*) from videos) as videos`.execute(db);
  const stored = rows[0]!;
  if (Number(stored.products) !== 20_000 || Number(stored.creators) < 2_000 || Number(stored.videos) < 50_000)
    throw new Error(`the seed wrote ${JSON.stringify(stored)}, not the full scale`);

  const ascending = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const median = (xs: number[]) => percentile(ascending(xs), 0.5);
  const range = (xs: number[]) => `${seconds(median(xs))} (min ${seconds(Math.min(...xs))}, max ${seconds(Math.max(...xs))})`;
  console.log(`\n| step | time | runs |`);
  console.log(`|---|---|---|`);
  console.log(`| floor: generateCatalog alone (no database) | ${range(generate)} | ${RUNS} |`);
  console.log(`| seed into empty tables (\`npm start\` on a new database) | ${seconds(fresh)} | 1 |`);
  console.log(`| re-seed over the seeded catalog (\`npm run seed\`) | ${range(reseed)} | ${RUNS} |`);
  console.log(
    `\n${stored.products} products, ${stored.creators} creators, ${stored.videos} videos; ${machine()}; load ${loadBefore} → ${load()}`,
  );
} finally {
  await db.destroy();
  await database.drop();
  await rm(tmp, { recursive: true, force: true });
}

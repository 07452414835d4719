/**
 * Feed import at scale (docs/BENCHMARKS.md): a generated Google Merchant Center TSV of ROWS rows
 * (default 1,000,000; one item in ten in a two-variant item group), imported by
 * `npm run import-feed -- --merchant bench-feeds FILE` as its own process, against the floor of
 * COPY of the same file into a bare table of text columns in the same database, in the same run.
 * Reports wall time and the importer's peak RSS. Targets: ≤ 3× the floor, ≤ 300 MB.
 *
 *   npm run bench:feed-import [-- --rows 1000000]
 */
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs, promisify } from 'node:util';
import { from as copyFrom } from 'pg-copy-streams';
import { createDb, poolOf } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { createScratchDatabase } from '../src/dev/scratch-database';
import { seedCatalog } from '../src/catalog/seed';
import { PROJECT_ROOT } from '../src/temporal/cli';
import { machine } from './harness';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '1000000' } } });
const ROWS = Number(values.rows);
const COLUMNS = [
  'id',
  'title',
  'description',
  'link',
  'image_link',
  'availability',
  'price',
  'sale_price',
  'brand',
  'gtin',
  'mpn',
  'condition',
  'google_product_category',
  'product_type',
  'item_group_id',
  'size',
  'shipping_weight',
];
const BRANDS = ['Fjordline', 'Kestrel', 'Grainhouse', 'Summit', 'Brewline', 'Lumo', 'Carryall', 'Northfield'];
const TYPES = [
  'Apparel > Outerwear',
  'Footwear > Running Shoes',
  'Home & Kitchen > Coffee Gear',
  'Sports & Outdoors > Camping',
  'Toys & Games > Building Sets',
  'Beauty > Skin Care',
];
const NOUNS = ['jacket', 'runner', 'kettle', 'lantern', 'tile set', 'serum', 'tent', 'mug', 'backpack', 'scarf'];
const AVAILABILITY = ['in_stock', 'in_stock', 'in_stock', 'out_of_stock', 'preorder', 'backorder'];

async function generate(file: string): Promise<void> {
  async function* lines() {
    yield `${COLUMNS.join('\t')}\n`;
    let chunk = '';
    for (let i = 0; i < ROWS; i++) {
      const grouped = i % 10 >= 8; // rows 8 and 9 of every ten: two sizes of one item group
      const base = grouped ? i - (i % 10) + 8 : i;
      const brand = BRANDS[base % BRANDS.length]!;
      const noun = NOUNS[(base >> 3) % NOUNS.length]!;
      const price = 5 + (base % 9_000) / 37;
      chunk += [
        `B-${i}`,
        `${brand} ${noun} ${base}`,
        `The ${noun} from ${brand}, model ${base}: durable, light and made to last.`,
        `https://bench.shop.test/p/${base}`,
        `https://cdn.bench.shop.test/${base}.jpg`,
        AVAILABILITY[i % AVAILABILITY.length],
        `${price.toFixed(2)} USD`,
        i % 7 === 0 ? `${(price * 0.8).toFixed(2)} USD` : '',
        brand,
        String(812345000000 + i).padStart(14, '0'),
        `MPN-${i}`,
        'new',
        String(5598 + (base % 50)),
        TYPES[base % TYPES.length],
        grouped ? `G-${base}` : '',
        grouped ? (i % 10 === 8 ? 'M' : 'L') : '',
        `${(0.2 + (base % 30) / 10).toFixed(1)} kg`,
      ].join('\t');
      chunk += '\n';
      if (chunk.length > 1 << 20) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }
  await pipeline(lines, createWriteStream(file));
}

const tmp = await mkdtemp(path.join(os.tmpdir(), 'cig-bench-feed-'));
const database = await createScratchDatabase({ tmpDir: tmp, prefix: 'cig_bench_feed' });
const db = createDb(database.url);
try {
  await migrateToLatest(db);
  await seedCatalog(db);
  await db
    .insertInto('merchants')
    .values({
      merchant_id: 'bench-feeds',
      agent_endpoint: 'https://bench.shop.test/agent',
      token_hash: 'none',
      webhook_secret_sealed: 'none',
    })
    .execute();
  const file = path.join(tmp, 'merchant-center.tsv');
  let t = Date.now();
  await generate(file);
  const size = (await stat(file)).size;
  console.log(
    `generated ${ROWS.toLocaleString('en-US')} rows, ${(size / 2 ** 20).toFixed(0)} MiB, in ${((Date.now() - t) / 1000).toFixed(1)} s`,
  );

  // Floor: the same bytes through COPY into a bare table (no parsing in Node, no indexes), once
  // before and once after the import: on a shared machine the load moves during a run, and the
  // ratio is taken against the mean of the two.
  const floorOnce = async (): Promise<number> => {
    const client = await poolOf(db)!.connect();
    try {
      await client.query('drop table if exists bench_floor');
      await client.query(`create unlogged table bench_floor (${COLUMNS.map((c) => `${c} text`).join(', ')})`);
      const started = Date.now();
      await pipeline(
        createReadStream(file),
        client.query(copyFrom(`copy bench_floor from stdin with (format csv, delimiter E'\\t', header true, quote E'\\x01')`)),
      );
      return Date.now() - started;
    } finally {
      client.release();
    }
  };
  const floorBefore = await floorOnce();
  console.log(`floor: COPY into a bare table: ${(floorBefore / 1000).toFixed(1)} s`);

  // The importer in its own process (tsx included), its peak RSS from getrusage at exit.
  t = Date.now();
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    [path.join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'bench/feed-import-child.ts', file, 'bench-feeds'],
    { cwd: PROJECT_ROOT, env: { ...process.env, DATABASE_URL: database.url }, maxBuffer: 16 * 2 ** 20, timeout: 30 * 60_000 },
  );
  const importMs = Date.now() - t;
  process.stderr.write(stderr);
  const r = JSON.parse(stdout.trim().split('\n').pop()!);
  const products = await db
    .selectFrom('products')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('merchant_id', '=', 'bench-feeds')
    .executeTakeFirstOrThrow();
  console.log(
    `import: ${(importMs / 1000).toFixed(1)} s (${Math.round(ROWS / (importMs / 1000)).toLocaleString('en-US')} rows/s), ${r.rows_read} rows read, ${r.imported} products (${products.n} in the catalog), ${r.rejected} rejected`,
  );
  console.log(`importer phases (ms): ${JSON.stringify(r.timings_ms)}; importer CPU ${(r.cpuMs / 1000).toFixed(1)} s`);
  const floorAfter = await floorOnce();
  const floorMs = (floorBefore + floorAfter) / 2;
  console.log(`floor again after the import: ${(floorAfter / 1000).toFixed(1)} s (mean ${(floorMs / 1000).toFixed(1)} s)`);
  const ratio = importMs / floorMs;
  const rssMb = r.maxRssKb / 1024;
  console.log(`\n| rows | floor (COPY, bare table) | import | ratio | importer peak RSS | machine |`);
  console.log(`|---|---|---|---|---|---|`);
  console.log(
    `| ${ROWS.toLocaleString('en-US')} | ${(floorMs / 1000).toFixed(1)} s | ${(importMs / 1000).toFixed(1)} s | ${ratio.toFixed(2)}× | ${rssMb.toFixed(0)} MB | ${machine()} |`,
  );
  console.log(`\ntargets: ≤ 3× floor ${ratio <= 3 ? 'met' : 'MISSED'}, ≤ 300 MB ${rssMb <= 300 ? 'met' : 'MISSED'}`);
} finally {
  await db.destroy();
  await database.drop();
  await rm(tmp, { recursive: true, force: true });
}

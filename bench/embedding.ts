/**
 * The semantic tier's costs apart from HTTP (docs/BENCHMARKS.md, "Semantic tier"):
 *
 * - the encoder on product texts (`embeddingText` of seeded rows, the default batch of 32), with one
 *   ONNX Runtime thread (EMBEDDING_THREADS' default) and with two;
 * - the catalog-embedding walk: `embedCatalogPage` over the first --walk products of a freshly seeded
 *   catalog in pages of 256 (the flow's page), a fresh model and nothing cached, its time split into
 *   the encoder's and the rest (the page's read, the text hashes, the upsert); the time a
 *   1,000,000-product catalog needs to become searchable is extrapolated from its products/s (the
 *   flow's Temporal overhead per page is not in it);
 * - in a fresh process each, as an API process holds them: memory (RSS, V8 heap, array buffers) before
 *   and after loading the query encoder, and after loading a `SemanticIndex` from Postgres (its
 *   `catchUp`, the API's own path) of the seeded catalog's 20,000 real vectors, and of --synthetic
 *   (default 1,000,000) synthetic unit vectors (each a real vector plus Gaussian noise, normalised, so
 *   scores spread as real ones do), with the load time; the query encoder's milliseconds per sentence
 *   (distinct shopper sentences, one at a time, as a request embeds its sentence); and the exact
 *   scan's milliseconds per query with the hybrid ranker's parameters (k = 3 × FUSION.candidates,
 *   minScore = FUSION.semanticSupport).
 *
 *   npm run bench:embedding [-- --encode 1024 --walk 2048 --queries 300 --synthetic 1000000]
 *
 * The floor is the encoder alone on the same texts (the walk / encoder ratio is what Postgres and the
 * walk add). The load average is printed before and after: the machine is shared.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { embedCatalogPage, embeddingText, type TextEmbedder } from '../src/catalog/embeddings';
import { mulberry32 } from '../src/catalog/random';
import { seedCatalog } from '../src/catalog/seed';
import { createDb, type Db } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { createScratchDatabase } from '../src/dev/scratch-database';
import { SentenceEncoder } from '../src/embedding/encoder';
import { EMBEDDING_MODEL, findEmbeddingModel } from '../src/embedding/model';
import { FUSION } from '../src/recommend/retrieval';
import { SemanticIndex } from '../src/recommend/semantic-index';
import { embedTestCatalog } from '../test/helpers/embeddings';
import { machine, percentile } from './harness';
import { distinctShopperSentences } from './shopper-sentences';

const { values } = parseArgs({
  options: {
    encode: { type: 'string', default: '1024' },
    walk: { type: 'string', default: '2048' },
    queries: { type: 'string', default: '300' },
    synthetic: { type: 'string', default: '1000000' },
    /** Internal: run as the measuring child process (JSON: database url, label). */
    child: { type: 'string' },
  },
});

/** The walk's page (workflows/catalog-embedding.ts PAGE_SIZE). */
const WALK_PAGE = 256;
/** What byMeaning asks the index for (src/recommend/retrieval.ts). */
const SCAN_K = Math.max(3, FUSION.candidates) * 3;
const SCAN_MIN = FUSION.semanticSupport;

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
const normalise = (text: string) => text.trim().toLowerCase().replace(/\s+/g, ' ');

interface Memory {
  rss: number;
  heapUsed: number;
  arrayBuffers: number;
  external: number;
}

interface ChildReport {
  label: string;
  size: number;
  loadMs: number;
  modelLoadMs: number;
  before: Memory;
  withModel: Memory;
  withIndex: Memory;
  peakRss: number;
  queryMs: Stats;
  scanMs: Stats;
}

/** Wall milliseconds per item, and this process's CPU milliseconds per item over the same loop. */
interface Stats {
  mean: number;
  p50: number;
  p99: number;
  n: number;
  cpu: number;
}

/** Memory after a full GC (the child runs with --expose-gc), in bytes. */
function memory(): Memory {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers, external: m.external };
}

/** The process's peak resident set (VmHWM), in bytes. */
function peakRss(): number {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return Number(line?.match(/(\d+)/)?.[1] ?? 0) * 1024;
}

/** CPU milliseconds (user + system, every thread of this process) since `from`. */
const cpuMsSince = (from: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
};

const stats = (ms: number[], cpuMs: number): Stats => {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    mean: ms.reduce((a, b) => a + b, 0) / ms.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    n: ms.length,
    cpu: cpuMs / ms.length,
  };
};

/**
 * The measuring child: a fresh process that loads what an API process with the semantic tier holds
 * (the query encoder, one thread; the index, by its own catchUp from Postgres), measuring memory
 * between the steps, then times the query encoder and the scan.
 */
async function child(cfg: { url: string; label: string; queries: number }): Promise<void> {
  const db = createDb(cfg.url, { max: 2 });
  const sentences = distinctShopperSentences(cfg.queries + 20).map(normalise);
  const before = memory();

  let t = performance.now();
  const encoder = await SentenceEncoder.load(await findEmbeddingModel(), { threads: 1 });
  const modelLoadMs = performance.now() - t;
  // A request embeds its sentence alone (SemanticTier.embedQuery): one at a time, after a warm-up.
  for (const s of sentences.slice(0, 20)) await encoder.embed([s]);
  const queryMs: number[] = [];
  const vectors: Float32Array[] = [];
  let cpu = process.cpuUsage();
  for (const s of sentences.slice(20)) {
    t = performance.now();
    const [v] = await encoder.embed([s]);
    queryMs.push(performance.now() - t);
    vectors.push(v!);
  }
  const queryCpu = cpuMsSince(cpu);
  const withModel = memory();

  const index = new SemanticIndex(EMBEDDING_MODEL.id, EMBEDDING_MODEL.dims);
  t = performance.now();
  await index.catchUp(db);
  const loadMs = performance.now() - t;
  await db.destroy();
  const withIndex = memory();

  // At 1,000,000 vectors a scan takes long enough that a few dozen queries tell the figure.
  const scans = index.size > 100_000 ? vectors.slice(0, 40) : vectors;
  for (const q of scans.slice(0, 3)) index.search(q, SCAN_K, SCAN_MIN);
  const scanMs: number[] = [];
  cpu = process.cpuUsage();
  for (const q of scans) {
    t = performance.now();
    index.search(q, SCAN_K, SCAN_MIN);
    scanMs.push(performance.now() - t);
  }
  const scanCpu = cpuMsSince(cpu);
  const report: ChildReport = {
    label: cfg.label,
    size: index.size,
    loadMs,
    modelLoadMs,
    before,
    withModel,
    withIndex,
    peakRss: peakRss(),
    queryMs: stats(queryMs, queryCpu),
    scanMs: stats(scanMs, scanCpu),
  };
  await encoder.close();
  console.log(JSON.stringify(report));
}

function runChild(url: string, label: string, queries: number): Promise<ChildReport> {
  const self = fileURLToPath(import.meta.url);
  // The API's Node flags (`npm run api`), and a GC on demand to read settled memory.
  const args = ['--max-semi-space-size=64', '--expose-gc', '--import', 'tsx', self, '--child', JSON.stringify({ url, label, queries })];
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LOG_LEVEL: 'warn' } });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('error', reject);
    p.on('exit', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last) as ChildReport);
      else reject(new Error(`measuring child (${label}) exited ${code}: ${out}`));
    });
  });
}

/** An embedder that times the encoder's share of a walk. */
function timedEmbedder(encoder: SentenceEncoder): TextEmbedder & { ms: number; texts: number } {
  return {
    modelId: encoder.modelId,
    dims: encoder.dims,
    ms: 0,
    texts: 0,
    async embed(texts) {
      const t = performance.now();
      const out = await encoder.embed(texts);
      this.ms += performance.now() - t;
      this.texts += texts.length;
      return out;
    },
  };
}

/** products/s of the encoder alone on `texts` (a warm-up batch first, not counted). */
async function encodeRate(
  texts: string[],
  threads: number,
): Promise<{ threads: number; perSecond: number; perCpuSecond: number; ms: number; loadMs: number }> {
  let t = performance.now();
  const encoder = await SentenceEncoder.load(await findEmbeddingModel(), { threads });
  const loadMs = performance.now() - t;
  try {
    await encoder.embed(texts.slice(0, 32));
    const cpu = process.cpuUsage();
    t = performance.now();
    await encoder.embed(texts);
    const ms = performance.now() - t;
    return { threads, perSecond: (texts.length * 1000) / ms, perCpuSecond: (texts.length * 1000) / cpuMsSince(cpu), ms, loadMs };
  } finally {
    await encoder.close();
  }
}

/** The walk over `count` products after `after`, with a fresh encoder of `threads` threads. */
async function walk(db: Db, after: number, count: number, threads: number) {
  const encoder = await SentenceEncoder.load(await findEmbeddingModel(), { threads });
  const embedder = timedEmbedder(encoder);
  try {
    let cursor = after;
    let scanned = 0;
    let embedded = 0;
    const cpu = process.cpuUsage();
    const t = performance.now();
    while (scanned < count) {
      const page = await embedCatalogPage(db, embedder, { after: cursor, pageSize: WALK_PAGE });
      if (page.cursor === null) break;
      cursor = page.cursor;
      scanned += page.scanned;
      embedded += page.embedded;
    }
    const ms = performance.now() - t;
    const cpuMs = cpuMsSince(cpu);
    return {
      threads,
      from: after + 1,
      to: cursor,
      scanned,
      embedded,
      ms,
      cpuMs,
      encoderMs: embedder.ms,
      perSecond: (embedded * 1000) / ms,
    };
  } finally {
    await encoder.close();
  }
}

/**
 * `count` synthetic unit vectors into product_embeddings (ids 1..count), each one of `base` plus
 * Gaussian noise (σ 0.025 a dimension: cosine ≈ 0.9 to its base), normalised. 5,000 rows a statement,
 * their vectors sent as one binary parameter and cut apart in Postgres.
 */
async function fillSynthetic(db: Db, base: Float32Array[], count: number): Promise<number> {
  const dims = EMBEDDING_MODEL.dims;
  const rng = mulberry32(1_000_000);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  const t = performance.now();
  const BATCH = 5000;
  for (let first = 1; first <= count; first += BATCH) {
    const n = Math.min(BATCH, count - first + 1);
    const buf = Buffer.alloc(n * dims * 4);
    const v = new Float32Array(dims);
    for (let r = 0; r < n; r++) {
      const from = base[(first + r) % base.length]!;
      let norm = 0;
      for (let d = 0; d < dims; d++) {
        v[d] = from[d]! + 0.025 * gauss();
        norm += v[d]! * v[d]!;
      }
      const scale = 1 / Math.sqrt(norm);
      for (let d = 0; d < dims; d++) buf.writeFloatLE(v[d]! * scale, (r * dims + d) * 4);
    }
    await sql`
      insert into product_embeddings (product_id, model_id, text_hash, vec)
      select ${first}::bigint + i, ${EMBEDDING_MODEL.id}, decode('00', 'hex'),
             substring(${buf}::bytea from i * ${dims * 4} + 1 for ${dims * 4})
      from generate_series(0, ${n - 1}::int) as i`.execute(db);
  }
  return performance.now() - t;
}

async function realVectors(db: Db): Promise<Float32Array[]> {
  const { rows } = await sql<{ vec: Buffer }>`select vec from product_embeddings order by product_id`.execute(db);
  return rows.map((r) => new Float32Array(r.vec.buffer.slice(r.vec.byteOffset, r.vec.byteOffset + r.vec.byteLength)));
}

function memoryRows(r: ChildReport): string[] {
  const row = (step: string, m: Memory, d?: Memory) =>
    `| ${r.label}: ${step} | ${mb(m.rss)}${d ? ` (+${mb(m.rss - d.rss)})` : ''} | ${mb(m.heapUsed)} | ${mb(m.arrayBuffers)} | ${mb(m.external)} |`;
  return [
    row('before', r.before),
    row('+ query encoder (loaded, used)', r.withModel, r.before),
    row(`+ index of ${r.size.toLocaleString('en')} vectors`, r.withIndex, r.withModel),
  ];
}

async function main(): Promise<void> {
  const [encodeN, walkN, queries, syntheticN] = [values.encode, values.walk, values.queries, values.synthetic].map(Number) as [
    number,
    number,
    number,
    number,
  ];
  const loadBefore = load();
  const started = new Date();
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'cig-bench-embedding-'));
  const real = await createScratchDatabase({ tmpDir: tmp, prefix: 'cig_bench_emb' });
  const db = createDb(real.url);
  let synthetic: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
  try {
    await migrateToLatest(db);
    await seedCatalog(db);
    console.log(`machine: ${machine()}; started ${started.toISOString()}; load average ${loadBefore}`);

    // The encoder alone on product texts from the end of the catalog (the walk below starts at its beginning).
    const rows = await db
      .selectFrom('products')
      .select(['title', 'brand', 'category_l1', 'category_l2', 'description'])
      .orderBy('product_id', 'desc')
      .limit(encodeN + 32)
      .execute();
    const texts = rows.map(embeddingText);
    const tokensPerText = texts.reduce((n, s) => n + s.split(/\s+/).length, 0) / texts.length;
    const encode = [await encodeRate(texts, 1), await encodeRate(texts, 2)];

    // The walk over products nothing has embedded yet: the first walkN with one thread, the next walkN with two.
    const walk1 = await walk(db, 0, walkN, 1);
    const walk2 = await walk(db, walk1.to, walkN, 2);

    // The rest of the catalog from the vector cache, so the index below holds all 20,000 real vectors.
    await embedTestCatalog(db);
    await sql`vacuum analyze product_embeddings`.execute(db);
    const r20k = await runChild(real.url, 'seeded catalog', queries);

    synthetic = await createScratchDatabase({ tmpDir: tmp, prefix: 'cig_bench_emb1m' });
    const sdb = createDb(synthetic.url, { max: 2 });
    let fillMs: number;
    try {
      await migrateToLatest(sdb);
      fillMs = await fillSynthetic(sdb, await realVectors(db), syntheticN);
      await sql`vacuum analyze product_embeddings`.execute(sdb);
    } finally {
      await sdb.destroy();
    }
    const r1m = await runChild(synthetic.url, 'synthetic', queries);
    const loadAfter = load();

    console.log(`\nproduct texts: ${texts.length} (mean ${tokensPerText.toFixed(1)} words: embeddingText of seeded rows)\n`);
    console.log(
      '| encoder on product texts (batches of 32) | threads | products/s | products per CPU-second of this process | s | model load ms |',
    );
    console.log('|---|---|---|---|---|---|');
    for (const e of encode)
      console.log(
        `| ${encodeN} texts | ${e.threads} | ${e.perSecond.toFixed(1)} | ${e.perCpuSecond.toFixed(1)} | ${(e.ms / 1000).toFixed(1)} | ${e.loadMs.toFixed(0)} |`,
      );

    console.log(
      `\n| walk: embedCatalogPage, pages of ${WALK_PAGE}, fresh model, nothing cached | threads | products | products/s | s | encoder share of the time | worker CPU ms per product | 1,000,000 products at this rate (extrapolated) |`,
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const w of [walk1, walk2])
      console.log(
        `| products ${w.from}–${w.to} | ${w.threads} | ${w.embedded} | ${w.perSecond.toFixed(1)} | ${(w.ms / 1000).toFixed(1)} | ${((100 * w.encoderMs) / w.ms).toFixed(0)} % | ${(w.cpuMs / w.embedded).toFixed(1)} | ${(1_000_000 / w.perSecond / 3600).toFixed(2)} h |`,
      );

    console.log(
      '\n| process (fresh, `npm run api` flags), after a full GC | RSS MB (Δ) | V8 heap used MB | array buffers MB | external MB |',
    );
    console.log('|---|---|---|---|---|');
    for (const r of [r20k, r1m]) for (const line of memoryRows(r)) console.log(line);
    console.log(
      `\nmodel + index, RSS over the process before them: ${r20k.label} ${mb(r20k.withIndex.rss - r20k.before.rss)} MB (${r20k.size} vectors), ` +
        `${r1m.label} ${mb(r1m.withIndex.rss - r1m.before.rss)} MB (${r1m.size} vectors); peak RSS ${mb(r20k.peakRss)} and ${mb(r1m.peakRss)} MB`,
    );
    console.log(
      `index load (catchUp from Postgres): ${r20k.size} vectors ${(r20k.loadMs / 1000).toFixed(1)} s, ${r1m.size} vectors ${(r1m.loadMs / 1000).toFixed(1)} s; ` +
        `synthetic rows written in ${(fillMs / 1000).toFixed(1)} s; query model load ${r20k.modelLoadMs.toFixed(0)} ms`,
    );

    console.log(`\n| per query, one at a time | n | mean ms | p50 ms | p99 ms | CPU ms |`);
    console.log('|---|---|---|---|---|---|');
    const line = (name: string, s: Stats) =>
      console.log(`| ${name} | ${s.n} | ${s.mean.toFixed(2)} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.cpu.toFixed(2)} |`);
    line('query encoder, distinct shopper sentence (1 thread)', r20k.queryMs);
    line(`exact scan, ${r20k.size.toLocaleString('en')} vectors (k ${SCAN_K}, min ${SCAN_MIN})`, r20k.scanMs);
    line(`exact scan, ${r1m.size.toLocaleString('en')} vectors (k ${SCAN_K}, min ${SCAN_MIN})`, r1m.scanMs);
    console.log(`\nload average before ${loadBefore}, after ${loadAfter}; finished ${new Date().toISOString()}`);
  } finally {
    await db.destroy();
    await real.drop();
    await synthetic?.drop();
    await rm(tmp, { recursive: true, force: true });
  }
}

if (values.child) await child(JSON.parse(values.child) as { url: string; label: string; queries: number });
else await main();

import { SemanticTier } from '../../src/recommend/semantic';
import { SentenceEncoder } from '../../src/embedding/encoder';
import { EMBEDDING_MODEL, findEmbeddingModel } from '../../src/embedding/model';
import { embedTestCatalog } from '../../test/helpers/embeddings';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { importFeed } from '../../src/catalog/feed-import';
import { CardFactsCache } from '../../src/catalog/cards';
import { seedCatalog } from '../../src/catalog/seed';
import { createDb, type Db } from '../../src/db/connect';
import { migrateToLatest } from '../../src/db/migrate';
import { createScratchDatabase, type ScratchDatabase } from '../../src/dev/scratch-database';
import { CatalogSnapshotCache } from '../../src/recommend/catalog-snapshot';
import { recommend, type RecommendDeps } from '../../src/recommend/recommend';
import { RecommendationRecorder } from '../../src/recommend/record';
import { RANKERS, type FusionSettings, type Ranker } from '../../src/recommend/retrieval';
import { registerMerchant } from '../../src/registry/merchants';
import { MerchantRegisterBody } from '../../src/schemas/merchants';
import type { ProductCardDocumentT } from '../../src/schemas/catalog';
import { STORES, storeFile } from '../catalogs/stores';
import { REAL_CASES, SEEDED_CASES, acceptableCount, type RealCase, type SeededCase } from './cases';
import { SETS, figuresOf, type CaseResult, type EvalReport, type Figures, type SetFigures, type SetName } from './figures';
import { hitAt, ndcgAt, precisionAt, type Grade } from './metrics';

/**
 * The recommendation evaluation (docs/RECOMMEND.md, "Evaluation"): shopper sentences graded by
 * hand (eval/recommend/real-cases.ts, seeded-cases.ts) through `recommend()` with each ranker, on
 * scratch databases of its own:
 *
 * - `seeded`: the generated catalog `npm start` seeds (20,000 products), graded by category, price
 *   and ship-to region, as test/recommend-quality.test.ts grades it;
 * - `real`: the real stores of eval/catalogs/ imported by the feed import, each for a merchant of its
 *   own, and nothing else (a seeded product is no answer the grades could judge), graded by product.
 *
 * Used by `npm run eval:recommend` (eval/recommend.ts) and test/recommend-eval.test.ts.
 */

/** Cards asked for: nDCG@10 reads ten; precision@3 and hit@3 read the first three (the tiers rank the same prefix whatever the limit). */
const LIMIT = 10;
const K = 3;

export interface EvalOptions {
  rankers?: readonly Ranker[];
  /** Fusion settings to try with the hybrid ranker instead (eval/tune-fusion.ts), on the same databases. */
  fusions?: readonly FusionSettings[];
  /** Postgres to make the scratch databases on (default 127.0.0.1:5432, else an embedded server). */
  adminUrl?: string;
  log?: (line: string) => void;
  onTried?: (tried: Tried) => void;
}

/** The hybrid ranker's figures with one fusion setting. */
export interface Tried {
  fusion: FusionSettings;
  seeded: SetFigures;
  real: SetFigures;
}

// -------------------------------------------------------------------------------------------------
// What recommend() needs. THE one place the evaluation builds its dependencies: the semantic tier's
// index (RecommendDeps.semantic, built from the database) is to be added here, for each database.
// -------------------------------------------------------------------------------------------------
export async function buildRecommendDeps(db: Db): Promise<RecommendDeps> {
  // The catalog does not change while the sentences run: its facts are read once.
  return {
    db,
    publicBaseUrl: 'http://eval.invalid',
    snapshots: new CatalogSnapshotCache(24 * 3600),
    cardFacts: new CardFactsCache(db, 24 * 3600),
    recorder: new RecommendationRecorder(db),
    matchSessionTtlS: 900,
    // The semantic tier as an API process has it (src/recommend/semantic.ts), over this database's vectors.
    semantic: new SemanticTier(async () => SentenceEncoder.load(await findEmbeddingModel(), { threads: 1 }), EMBEDDING_MODEL),
  };
}

/** The real stores, each registered as a merchant of its own and imported as its owner would. */
export async function importRealStores(db: Db, log: (line: string) => void = () => undefined): Promise<void> {
  for (const store of STORES) {
    await registerMerchant(
      { db, allowPrivateEndpoints: true },
      MerchantRegisterBody.parse({
        merchant_id: store.merchantId,
        // These stores sell on their own pages: no agent endpoint of theirs is ever called.
        agent_endpoint: 'http://127.0.0.1:9/agent',
        workflow_context: { checkout_modes: ['merchant_redirect'] },
      }),
      {},
    );
    const report = await importFeed(db, storeFile(store), {
      merchantId: store.merchantId,
      storeUrl: store.storeUrl ?? null,
      trigger: 'cli',
    });
    log(
      `  ${store.merchantId.padEnd(16)} ${store.file} (${report.format}): ${report.rows_read} rows, ${report.imported} products, ${report.rejected} rejected`,
    );
    for (const s of report.skipped) log(`    line ${s.line}: ${s.reason}`);
    if (report.imported === 0) throw new Error(`${store.file}: nothing was imported`);
  }
}

interface Prepared {
  db: Db;
  scratch: ScratchDatabase;
  deps: RecommendDeps;
}

async function prepare(set: SetName, tmp: string, opts: EvalOptions, log: (l: string) => void): Promise<Prepared> {
  const scratch = await createScratchDatabase({ adminUrl: opts.adminUrl, tmpDir: path.join(tmp, set), prefix: `cig_eval_${set}` });
  const db = createDb(scratch.url);
  try {
    await migrateToLatest(db);
    if (set === 'seeded') await seedCatalog(db);
    else await importRealStores(db, log);
    // The embedding flow's work, done here in process (vectors of texts embedded before come from the cache).
    const embedded = await embedTestCatalog(db);
    log(`  ${set}: ${embedded.scanned} products embedded (${embedded.fromCache} from the cache)`);
    return { db, scratch, deps: await buildRecommendDeps(db) };
  } catch (err) {
    await db.destroy();
    await scratch.drop();
    throw err;
  }
}

const keyOf = (card: ProductCardDocumentT) => `${card.product.seller?.merchant_id ?? '?'}/${card.product.external_id ?? card.product.id}`;

/** The sellers' listings a card shows (cards issued before listings were grouped have none). */
const offersOf = (card: ProductCardDocumentT) =>
  (card as { offers?: Array<{ merchant_id: string; external_id: string | null; product_id: string }> }).offers ?? [];

function seededGrade(card: ProductCardDocumentT, accept: NonNullable<SeededCase['accept']>): Grade {
  const { category_l1: l1, category_l2: l2, price_usd: price } = card.product;
  const inCategory = accept.categories.some((c) => c === l1 || c === `${l1} > ${l2}`);
  const inBudget =
    price != null &&
    (accept.minPrice === undefined || price >= accept.minPrice) &&
    (accept.maxPrice === undefined || price <= accept.maxPrice);
  const allow = card.compliance?.region_allow ?? [];
  const ships = !accept.region || allow.length === 0 || allow.includes(accept.region);
  return inCategory && inBudget && ships ? 1 : 0;
}

/** How many seeded products a sentence accepts, up to LIMIT (the ideal answer for nDCG@10). */
async function seededAcceptable(db: Db, accept: NonNullable<SeededCase['accept']>): Promise<number> {
  const category = sql.join(
    accept.categories.map((c) => {
      const [l1, l2] = c.split(' > ');
      return l2 === undefined ? sql`p.category_l1 = ${l1}` : sql`(p.category_l1 = ${l1} and p.category_l2 = ${l2})`;
    }),
    sql` or `,
  );
  const min = accept.minPrice === undefined ? sql`` : sql` and p.price_cents >= ${Math.round(accept.minPrice * 100)}`;
  const max = accept.maxPrice === undefined ? sql`` : sql` and p.price_cents <= ${Math.round(accept.maxPrice * 100)}`;
  const region = accept.region ? sql` and (cardinality(p.region_allow) = 0 or ${accept.region} = any(p.region_allow))` : sql``;
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from (select 1 from products p where (${category}) and p.currency = 'USD'${min}${max}${region} limit ${LIMIT}) x`.execute(
    db,
  );
  return rows[0]!.n;
}

/** A grade naming a product no store has, or a seeded sentence nothing qualifies for, is a mistake in the grades: refused. */
async function checkGrades(realDb: Db, seededIdeal: Map<string, number>): Promise<void> {
  const { rows } = await sql<{ key: string }>`select merchant_id || '/' || external_id as key from products where source = 'feed'`.execute(
    realDb,
  );
  const known = new Set(rows.map((r) => r.key));
  const unknown = [...new Set(REAL_CASES.flatMap((c) => Object.keys(c.grades ?? {})))].filter((k) => !known.has(k));
  const empty = SEEDED_CASES.filter((c) => c.accept && !seededIdeal.get(c.query)).map((c) => c.query);
  const problems = [
    ...unknown.map((k) => `graded product ${k} is in no imported store`),
    ...empty.map((q) => `no seeded product qualifies for "${q}"`),
  ];
  if (problems.length) throw new Error(`the evaluation's grades are wrong:\n  ${problems.join('\n  ')}`);
}

async function runCase(
  deps: RecommendDeps,
  set: SetName,
  ranker: Ranker,
  c: RealCase | SeededCase,
  seededIdeal: Map<string, number>,
  fusion?: FusionSettings,
): Promise<CaseResult> {
  const res = await recommend(deps, { intent: c.query, limit: LIMIT, region: 'region' in c ? c.region : undefined, ranker, fusion }, {});
  const intentCards = res.items.slice(0, res.retrieval.intent_hits);
  let grades: Grade[];
  let available: Grade[];
  let wanted: string[];
  if (set === 'real') {
    const rc = c as RealCase;
    const g = rc.grades ?? {};
    // Only intent hits can be right: a trending suggestion is labelled as one, not offered as a match.
    // A card may list several sellers' listings of one product (its offers): it is worth its best
    // graded listing not already credited to an earlier card, so no listing counts twice, and the
    // other graded listings it shows are the same product, so the ideal answer has them once too.
    const credited = new Set<string>();
    const merged: string[] = [];
    grades = res.items.map((card, i) => {
      if (i >= intentCards.length) return 0;
      const keys = [keyOf(card), ...offersOf(card).map((o) => `${o.merchant_id}/${o.external_id ?? o.product_id}`)];
      const graded = [...new Set(keys)].filter((k) => !credited.has(k) && g[k]).sort((a, b) => g[b]! - g[a]!);
      for (const k of keys) credited.add(k);
      merged.push(...graded.slice(1));
      return (graded.length ? g[graded[0]!]! : 0) as Grade;
    });
    available = Object.entries(g)
      .filter(([k]) => !merged.includes(k))
      .map(([, v]) => v);
    const exact = Object.entries(g).filter(([, v]) => v === 2);
    wanted = (exact.length ? exact : Object.entries(g)).map(([k]) => k);
  } else {
    const sc = c as SeededCase;
    grades = res.items.map((card, i) => (sc.accept && i < intentCards.length ? seededGrade(card, sc.accept) : 0));
    available = sc.accept ? Array.from({ length: seededIdeal.get(c.query) ?? 0 }, () => 1 as Grade) : [];
    wanted = sc.accept ? sc.accept.categories : [];
  }
  const count = set === 'real' ? acceptableCount(c as RealCase) : available.length;
  const measure = count === 0 ? 'nothing' : count >= K ? 'precision' : 'hit';
  const score =
    measure === 'nothing' ? (res.retrieval.intent_hits === 0 ? 1 : 0) : measure === 'precision' ? precisionAt(grades, K) : hitAt(grades, K);
  return {
    set,
    ranker,
    query: c.query + ('region' in c && c.region ? ` [region ${c.region}]` : ''),
    kind: c.kind,
    measure,
    score,
    ndcg: measure === 'nothing' ? null : ndcgAt(grades, available, LIMIT),
    intentHits: res.retrieval.intent_hits,
    tier: res.match_tier,
    top: res.items.slice(0, K).map((card, i) => ({ key: keyOf(card), title: card.product.title, grade: grades[i]! })),
    wanted,
  };
}

/** Runs every sentence of both sets through recommend() with each ranker. */
export async function runRecommendEvaluation(opts: EvalOptions = {}): Promise<EvalReport> {
  const log = opts.log ?? (() => undefined);
  const rankers = [...(opts.rankers ?? RANKERS)];
  const seconds: Record<string, number> = {};
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'cig-eval-'));
  const prepared: Partial<Record<SetName, Prepared>> = {};
  const results: CaseResult[] = [];
  const tuning: Tried[] = [];
  try {
    for (const set of SETS) {
      const t = Date.now();
      log(set === 'seeded' ? 'seeding the generated catalog…' : 'importing the real stores…');
      prepared[set] = await prepare(set, tmp, opts, log);
      seconds[`prepare_${set}`] = (Date.now() - t) / 1000;
    }
    const seededIdeal = new Map<string, number>();
    for (const c of SEEDED_CASES) if (c.accept) seededIdeal.set(c.query, await seededAcceptable(prepared.seeded!.db, c.accept));
    await checkGrades(prepared.real!.db, seededIdeal);
    for (const fusion of opts.fusions ?? []) {
      const rows: CaseResult[] = [];
      for (const set of SETS) {
        const cases: Array<RealCase | SeededCase> = set === 'real' ? REAL_CASES : SEEDED_CASES;
        for (const c of cases) rows.push(await runCase(prepared[set]!.deps, set, 'hybrid', c, seededIdeal, fusion));
      }
      const tried = {
        fusion,
        seeded: figuresOf(rows.filter((r) => r.set === 'seeded')),
        real: figuresOf(rows.filter((r) => r.set === 'real')),
      };
      tuning.push(tried);
      opts.onTried?.(tried);
    }
    for (const ranker of opts.fusions ? [] : rankers) {
      for (const set of SETS) {
        const t = Date.now();
        const cases: Array<RealCase | SeededCase> = set === 'real' ? REAL_CASES : SEEDED_CASES;
        for (const c of cases) results.push(await runCase(prepared[set]!.deps, set, ranker, c, seededIdeal));
        seconds[`${ranker}_${set}`] = (Date.now() - t) / 1000;
        log(`  ${ranker} over ${set}: ${cases.length} sentences in ${seconds[`${ranker}_${set}`]!.toFixed(1)} s`);
      }
    }
  } finally {
    for (const p of Object.values(prepared)) {
      await p.db.destroy();
      await p.scratch.drop();
    }
    await rm(tmp, { recursive: true, force: true });
  }
  const figures: Partial<Figures> = {};
  for (const ranker of rankers) {
    figures[ranker] = {
      seeded: figuresOf(results.filter((r) => r.ranker === ranker && r.set === 'seeded')),
      real: figuresOf(results.filter((r) => r.ranker === ranker && r.set === 'real')),
    };
  }
  return { rankers, figures, results, seconds, tuning };
}

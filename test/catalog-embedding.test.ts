import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, type Db } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { createScratchDatabase, type ScratchDatabase } from '../src/dev/scratch-database';
import { seedCatalog } from '../src/catalog/seed';
import { embeddingCoverage } from '../src/catalog/embeddings';
import { EMBEDDING_MODEL } from '../src/embedding/model';
import { catalogEmbeddingWorkflowId } from '../src/catalog-embedding/client';
import { ensureSystemChores, runChore, systemChoresWorkflowId } from '../src/housekeeping/chores';
import { CATALOG_EMBEDDING_WORKFLOW, type CatalogEmbeddingOutcome } from '../workflows/catalog-embedding.shared';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';
import { replayAndRecord as recordHistory } from './helpers/histories';

/**
 * The catalog-embedding flow and the semantic tier it feeds (docs/RECOMMEND.md): a scratch catalog of
 * 50 seeded products, a real worker running the walk with the real model, a merchant's feed imported
 * through the API (which starts the walk at once), the system-chores loop's check that starts a walk
 * only when the catalog changed, and recommendations that find the imported products by meaning, in
 * words the feed does not use.
 */

const HEADER = 'id\ttitle\tdescription\tlink\timage_link\tavailability\tprice\tbrand';
const row = (id: string, title: string, description: string, price: string) =>
  [id, title, description, `https://shop.test/p/${id}`, `https://cdn.shop.test/${id}.jpg`, 'in_stock', `${price} USD`, 'Hearthwood'].join(
    '\t',
  );
const FEED = [
  HEADER,
  row('sofa-3', 'Aldo three-seat sofa, velvet', 'A deep three-seat sofa upholstered in soft velvet, with feather cushions.', '899.00'),
  row('bedside-oak', 'Oak bedside table with one drawer', 'A small solid oak bedside table with a soft-close drawer.', '149.00'),
].join('\n');

let scratch: ScratchDatabase;
let db: Db;
let tmp: string;
let api: TestApi;
let worker: { stop(): Promise<void> };
let dev: Onboarded;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'catalog-embedding-test-'));
  const adminUrl = Object.assign(new URL(inject('databaseUrl')), { pathname: '/postgres' }).toString();
  scratch = await createScratchDatabase({ adminUrl, tmpDir: tmp, prefix: 'cig_embedding' });
  db = createDb(scratch.url);
  await migrateToLatest(db);
  await seedCatalog(db, { products: 50 });
  api = await startTestApi({ db, env: { DATABASE_URL: scratch.url, ALLOW_PRIVATE_ENDPOINTS: 'true' } });
  worker = await startTestWorker(api.config, db);
  dev = await onboard(api.url);
}, 180_000);

afterAll(async () => {
  await api?.temporal?.client.workflow
    .getHandle(systemChoresWorkflowId(api.config.TEMPORAL_TASK_QUEUE))
    .terminate('test over')
    .catch(() => undefined);
  await worker?.stop();
  await api?.close();
  await db?.destroy();
  await scratch?.drop();
  await rm(tmp, { recursive: true, force: true });
});

const runWalk = (workflowId: string) =>
  api.temporal!.client.workflow.execute(CATALOG_EMBEDDING_WORKFLOW, {
    workflowId,
    taskQueue: api.config.TEMPORAL_TASK_QUEUE,
    args: [],
  }) as Promise<CatalogEmbeddingOutcome>;

/** Polls (bounded) until `check` holds. */
async function eventually(what: string, check: () => Promise<boolean>, ms = 120_000) {
  for (const until = Date.now() + ms; !(await check());) {
    if (Date.now() > until) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const recommend = (intent: string) =>
  call(api.url, 'GET', `/v1/recommend?${new URLSearchParams({ intent, limit: '3' })}`, { token: dev.apiKey });

describe('catalog embedding', () => {
  it('a walk embeds every product, reports its progress, and finds nothing due while the catalog is unchanged', async () => {
    const id = `embed-walk-${Date.now()}`;
    const outcome = await runWalk(id);
    expect(outcome).toEqual({ status: 'embedded', scanned: 50, embedded: 50 });
    expect(await embeddingCoverage(db, EMBEDDING_MODEL.id)).toEqual({ products: 50, embedded: 50 });
    const handle = api.temporal!.client.workflow.getHandle(id);
    expect(await handle.query('progress')).toMatchObject({ total: 50, scanned: 50, embedded: 50 });
    await recordHistory(api.temporal!.client, id, 'catalog-embedding.json');

    const again = `embed-again-${Date.now()}`;
    expect(await runWalk(again)).toEqual({ status: 'up_to_date', scanned: 0, embedded: 0 });
    await recordHistory(api.temporal!.client, again, 'catalog-embedding-up-to-date.json');
  });

  it('an import through the API starts a walk at once, and recommendations find it in words the feed does not use', async () => {
    const merchantId = `hearthwood-${Date.now()}`;
    const reg = await call(api.url, 'POST', '/v1/merchant/register', {
      token: dev.apiKey,
      body: { merchant_id: merchantId, agent_endpoint: 'http://127.0.0.1:9/agent' },
    });
    expect(reg.status, reg.text).toBe(200);
    const imported = await call(api.url, 'POST', `/v1/merchant/${merchantId}/feeds`, {
      token: dev.apiKey,
      headers: { 'x-merchant-token': reg.body.registration_token },
      body: { content: FEED },
    });
    expect(imported.status, imported.text).toBe(200);
    await eventually('the imported products embedded', async () => {
      const c = await embeddingCoverage(db, EMBEDDING_MODEL.id);
      return c.embedded === c.products && c.products === 52;
    });
    // The walk the import started, under the task queue's one walk id, records the catalog embedded.
    const walk = api.temporal!.client.workflow.getHandle(catalogEmbeddingWorkflowId(api.config.TEMPORAL_TASK_QUEUE));
    expect(await walk.result()).toMatchObject({ status: 'embedded', embedded: 2 });

    for (const [sentence, external] of [
      ['a comfy couch for the living room', 'sofa-3'],
      ['wooden nightstand', 'bedside-oak'],
    ] as const) {
      const res = await recommend(sentence);
      expect(res.status, res.text).toBe(200);
      const top = res.body.items[0]?.product;
      const wanted = await db
        .selectFrom('products')
        .select('product_id')
        .where('merchant_id', '=', merchantId)
        .where('external_id', '=', external)
        .executeTakeFirstOrThrow();
      expect(
        String(top?.id),
        `${sentence}: ${JSON.stringify(res.body.items.map((i: { product: { title: string } }) => i.product.title))}`,
      ).toBe(String(wanted.product_id));
    }
    // A sentence that means nothing the catalog sells is not answered with products as if they fit.
    const nonsense = await recommend('qzxv blorft wibble');
    expect(nonsense.body).toMatchObject({ match_tier: 'none', note: 'trending_suggested', retrieval: { intent_hits: 0 } });
  });

  it('a product whose words change is embedded again (a new vector, a new seq)', async () => {
    const before = await db
      .selectFrom('product_embeddings')
      .select(['product_id', 'seq', 'text_hash'])
      .orderBy('product_id')
      .limit(1)
      .executeTakeFirstOrThrow();
    // The loop, as a worker boot starts it; its first tick finds the catalog embedded (no walk).
    const loop = await ensureSystemChores(api.temporal!.client, api.config.TEMPORAL_TASK_QUEUE);
    await eventually('the loop ticked once', async () => {
      const { currentDetails } = await api
        .temporal!.client.workflow.getHandle(loop.workflowId)
        .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      return /catalog embedded: no walk needed/.test(currentDetails ?? '');
    });
    await db.updateTable('products').set({ title: 'Renamed: a cast iron skillet' }).where('product_id', '=', before.product_id).execute();
    // The system-chores loop's check (run now through its Update) starts a walk: the catalog changed.
    const check = await runChore(api.temporal!.client, api.config.TEMPORAL_TASK_QUEUE, 'catalogEmbedding');
    expect(check).toEqual({ chore: 'catalogEmbedding', walk: catalogEmbeddingWorkflowId(api.config.TEMPORAL_TASK_QUEUE) });
    expect(await api.temporal!.client.workflow.getHandle((check as { walk: string }).walk).result()).toMatchObject({
      status: 'embedded',
      embedded: 1,
    });
    const after = await db
      .selectFrom('product_embeddings')
      .select(['seq', 'text_hash'])
      .where('product_id', '=', before.product_id)
      .executeTakeFirstOrThrow();
    expect(BigInt(after.seq) > BigInt(before.seq)).toBe(true);
    expect(after.text_hash.equals(before.text_hash)).toBe(false);
    // Nothing changed since: the check starts no walk (no run at all in the list).
    expect(await runChore(api.temporal!.client, api.config.TEMPORAL_TASK_QUEUE, 'catalogEmbedding')).toEqual({
      chore: 'catalogEmbedding',
      walk: null,
    });
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, type Db } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { createScratchDatabase, type ScratchDatabase } from '../src/dev/scratch-database';
import { seedCatalog } from '../src/catalog/seed';
import { importFeedSource } from '../src/catalog/feed-import';
import { LARGE_IMPORT_ID_BASE } from '../src/db/migrations/0031_catalog_partitions';
import { MerchantProductList } from '../src/schemas/feeds';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';

/**
 * A merchant names its products by its own ids (docs/CATALOG.md, "The merchant's ids and the
 * gateway's"): a feed import answers the map from the merchant's ids to the gateway's, the merchant's
 * product listing pages through all of it. Imports write the catalog, so this file works on a
 * scratch database with a small seeded catalog of its own and an API process over it.
 */

let scratch: ScratchDatabase;
let db: Db;
let tmp: string;
let api: TestApi;
let dev: Onboarded;

const uid = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
  call(api.url, 'POST', p, { token: dev.apiKey, body, headers });
const get = (p: string, headers: Record<string, string> = {}) => call(api.url, 'GET', p, { token: dev.apiKey, headers });

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'merchant-ids-test-'));
  const adminUrl = Object.assign(new URL(inject('databaseUrl')), { pathname: '/postgres' }).toString();
  scratch = await createScratchDatabase({ adminUrl, tmpDir: tmp, prefix: 'cig_merchant_ids' });
  db = createDb(scratch.url);
  await migrateToLatest(db);
  await seedCatalog(db, { products: 200 });
  api = await startTestApi({ db, withTemporal: false, env: { DATABASE_URL: scratch.url, ALLOW_PRIVATE_ENDPOINTS: 'true' } });
  dev = await onboard(api.url);
});

afterAll(async () => {
  await api?.close();
  await db?.destroy();
  await scratch?.drop();
  await rm(tmp, { recursive: true, force: true });
});

interface Merchant {
  id: string;
  token: string;
}

async function registerMerchant(tag: string, extra: Record<string, unknown> = {}): Promise<Merchant> {
  const id = uid(tag);
  const res = await post('/v1/merchant/register', { merchant_id: id, agent_endpoint: 'http://127.0.0.1:9/agent', ...extra });
  expect(res.status, res.text).toBe(200);
  return { id, token: res.body.registration_token as string };
}

const HEADER = 'id,item_group_id,sku,title,price,currency,category,link,color,size,inventory';
/** A feed of `n` single products (`<prefix>-0001` …) and one product with two variants (group `<prefix>-TEE`). */
function feed(prefix: string, n: number): string {
  const rows = [HEADER];
  rows.push(
    `${prefix}-TEE-S,${prefix}-TEE,SKU-${prefix}-S,Merino Trail Tee,48.00,USD,Apparel > Tops,https://shop.test/${prefix}/tee?s=S,Navy,S,4`,
    `${prefix}-TEE-M,${prefix}-TEE,SKU-${prefix}-M,Merino Trail Tee,49.00,USD,Apparel > Tops,https://shop.test/${prefix}/tee?s=M,Navy,M,0`,
  );
  for (let i = 1; i <= n; i++) {
    const id = `${prefix}-${String(i).padStart(4, '0')}`;
    rows.push(
      `${id},,,Insulated Water Bottle ${i},${(20 + i / 100).toFixed(2)},USD,Sports & Outdoors > Hydration,https://shop.test/${id},,,10`,
    );
  }
  return rows.join('\n');
}

async function importFeed(m: Merchant, content: string) {
  const res = await post(`/v1/merchant/${m.id}/feeds`, { content }, { 'x-merchant-token': m.token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function productIdOf(merchantId: string, externalId: string): Promise<number> {
  const row = await db
    .selectFrom('products')
    .select('product_id')
    .where('merchant_id', '=', merchantId)
    .where('external_id', '=', externalId)
    .executeTakeFirstOrThrow();
  return row.product_id;
}

describe('a feed import answers the merchant ids beside the gateway ids', () => {
  it('maps each product of the feed, in feed order, with its variant ids', async () => {
    const m = await registerMerchant('ids-map');
    const run = await importFeed(m, feed('A', 3));
    expect(run).toMatchObject({ added: 4, product_count: 4 });
    expect(run.products).toEqual([
      { external_id: 'A-TEE', product_id: await productIdOf(m.id, 'A-TEE'), variant_ids: ['A-TEE-S', 'A-TEE-M'] },
      { external_id: 'A-0001', product_id: await productIdOf(m.id, 'A-0001'), variant_ids: [] },
      { external_id: 'A-0002', product_id: await productIdOf(m.id, 'A-0002'), variant_ids: [] },
      { external_id: 'A-0003', product_id: await productIdOf(m.id, 'A-0003'), variant_ids: [] },
    ]);
    // Imported again: the same products, the same gateway ids (now unchanged rather than added).
    const again = await importFeed(m, feed('A', 3));
    expect(again).toMatchObject({ added: 0, unchanged: 4, product_count: 4 });
    expect(again.products).toEqual(run.products);
  });

  it('a large import maps its first 1000 products; the listing pages through all of them', async () => {
    const m = await registerMerchant('ids-large');
    const run = await importFeed(m, feed('L', 1204));
    expect(run.product_count).toBe(1205);
    expect(run.products).toHaveLength(1000);
    expect(run.products[0].external_id).toBe('L-TEE');
    expect(run.products[999].external_id).toBe('L-0999');

    const seen: any[] = [];
    let cursor: string | null = null;
    const pages: number[] = [];
    for (let page = 0; page < 10; page++) {
      const res = await get(`/v1/merchant/${m.id}/products?limit=500${cursor ? `&cursor=${cursor}` : ''}`, {
        'x-merchant-token': m.token,
      });
      expect(res.status, res.text).toBe(200);
      MerchantProductList.parse(res.body);
      expect(res.body.merchant_id).toBe(m.id);
      pages.push(res.body.products.length);
      seen.push(...res.body.products);
      cursor = res.body.next_cursor;
      if (!cursor) break;
    }
    expect(pages).toEqual([500, 500, 205]);
    const ids = seen.map((p) => p.external_id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(1205);
    // Every product of the import's map is listed with the same gateway id.
    const listed = new Map(seen.map((p) => [p.external_id, p.product_id]));
    for (const p of run.products) expect(listed.get(p.external_id), p.external_id).toBe(p.product_id);
  });

  it('an import that builds a partition of its own maps its new products too (before the partition is attached)', async () => {
    const m = await registerMerchant('ids-part');
    const bytes = Buffer.from(feed('P', 4));
    const report = await importFeedSource(
      db,
      (async function* () {
        yield bytes;
      })(),
      { merchantId: m.id, partitionMinProducts: 2, mapIds: 3 },
    );
    expect(Object.keys(report.timings_ms)).toEqual(expect.arrayContaining(['index_build', 'id_map', 'attach']));
    expect(report.products).toEqual([
      { external_id: 'P-TEE', product_id: await productIdOf(m.id, 'P-TEE'), variant_ids: ['P-TEE-S', 'P-TEE-M'] },
      { external_id: 'P-0001', product_id: await productIdOf(m.id, 'P-0001'), variant_ids: [] },
      { external_id: 'P-0002', product_id: await productIdOf(m.id, 'P-0002'), variant_ids: [] },
    ]);
    expect(report.products[0].product_id).toBeGreaterThanOrEqual(LARGE_IMPORT_ID_BASE);
    // Without mapIds (a scheduled refresh, the CLI) nothing is mapped.
    const plain = await importFeedSource(
      db,
      (async function* () {
        yield bytes;
      })(),
      { merchantId: m.id },
    );
    expect([plain.unchanged, plain.products, plain.timings_ms.id_map]).toEqual([5, [], undefined]);
  });

  it('lists both ids with title, price, link, availability and the variants (ids and SKUs)', async () => {
    const m = await registerMerchant('ids-list');
    await importFeed(m, feed('B', 2));
    const res = await get(`/v1/merchant/${m.id}/products`, { 'x-merchant-token': m.token });
    expect(res.status, res.text).toBe(200);
    MerchantProductList.parse(res.body);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.products.map((p: any) => p.external_id)).toEqual(['B-0001', 'B-0002', 'B-TEE']);
    expect(res.body.products[0]).toEqual({
      product_id: await productIdOf(m.id, 'B-0001'),
      external_id: 'B-0001',
      title: 'Insulated Water Bottle 1',
      price: { amount: 20.01, currency: 'USD', compare_at: null },
      link: 'https://shop.test/B-0001',
      availability: 'in_stock',
      variants: [],
    });
    expect(res.body.products[2]).toMatchObject({
      product_id: await productIdOf(m.id, 'B-TEE'),
      external_id: 'B-TEE',
      title: 'Merino Trail Tee',
      availability: 'in_stock',
      variants: [
        {
          variant_id: 'B-TEE-S',
          sku: 'SKU-B-S',
          price: 48,
          availability: 'in_stock',
          link: 'https://shop.test/B/tee?s=S',
        },
        { variant_id: 'B-TEE-M', sku: 'SKU-B-M', price: 49, availability: 'out_of_stock' },
      ],
    });
    // One at a time: the cursor of each page starts the next after it.
    const first = await get(`/v1/merchant/${m.id}/products?limit=1`, { 'x-merchant-token': m.token });
    expect(first.body.products.map((p: any) => p.external_id)).toEqual(['B-0001']);
    const second = await get(`/v1/merchant/${m.id}/products?limit=1&cursor=${first.body.next_cursor}`, { 'x-merchant-token': m.token });
    expect(second.body.products.map((p: any) => p.external_id)).toEqual(['B-0002']);
    // A forged cursor is a position too: it lists what sorts after it.
    const forged = await get(`/v1/merchant/${m.id}/products?cursor=${Buffer.from('B-0002').toString('base64url')}`, {
      'x-merchant-token': m.token,
    });
    expect(forged.body.products.map((p: any) => p.external_id)).toEqual(['B-TEE']);
  });

  it('is the merchant’s own: its token, and only its products', async () => {
    const a = await registerMerchant('ids-own-a');
    const b = await registerMerchant('ids-own-b');
    await importFeed(a, feed('OA', 1));
    const noToken = await get(`/v1/merchant/${a.id}/products`);
    expect([noToken.status, noToken.body.error]).toEqual([401, 'missing_registration_token']);
    const other = await get(`/v1/merchant/${a.id}/products`, { 'x-merchant-token': b.token });
    expect([other.status, other.body.error]).toEqual([403, 'invalid_registration_token']);
    const none = await get(`/v1/merchant/${b.id}/products`, { 'x-merchant-token': b.token });
    expect(none.body).toEqual({ merchant_id: b.id, products: [], next_cursor: null });
    const ghost = await get(`/v1/merchant/${uid('ghost')}/products`, { 'x-merchant-token': b.token });
    expect([ghost.status, ghost.body.error]).toEqual([404, 'merchant_not_found']);
    for (const bad of ['limit=0', 'limit=1001', 'cursor=a%2Fb', 'colour=red']) {
      const res = await get(`/v1/merchant/${a.id}/products?${bad}`, { 'x-merchant-token': a.token });
      expect(res.status, bad).toBe(400);
    }
  });
});

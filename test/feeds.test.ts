import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, type Db } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { createScratchDatabase, type ScratchDatabase } from '../src/dev/scratch-database';
import { seedCatalog } from '../src/catalog/seed';
import { catalogHasProduct, productSeller } from '../src/catalog/products';
import { importFeed } from '../src/catalog/feed-import';
import { ProductCardDocument } from '../src/schemas/catalog';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';

/**
 * Merchant feeds in the formats merchants already export, each imported for a registered merchant
 * and read back through the API as cards that name the seller, the variants, the price in its own
 * currency and the availability. Imports write the catalog, so this file works on a scratch
 * database with a small seeded catalog of its own and an API process over it.
 */

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'feeds');
const ROOT = path.join(import.meta.dirname, '..');
let scratch: ScratchDatabase;
let db: Db;
let tmp: string;
let api: TestApi;
let dev: Onboarded;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'feeds-test-'));
  const adminUrl = Object.assign(new URL(inject('databaseUrl')), { pathname: '/postgres' }).toString();
  scratch = await createScratchDatabase({ adminUrl, tmpDir: tmp, prefix: 'cig_feeds' });
  db = createDb(scratch.url);
  await migrateToLatest(db);
  await seedCatalog(db, { products: 300 });
  api = await startTestApi({ db, withTemporal: false, env: { DATABASE_URL: scratch.url, ALLOW_PRIVATE_ENDPOINTS: 'true' } });
  dev = await onboard(api.url);
});

afterAll(async () => {
  await api?.close();
  await db?.destroy();
  await scratch?.drop();
  await rm(tmp, { recursive: true, force: true });
});

async function registerMerchant(id: string, endpoint = 'http://127.0.0.1:9/agent') {
  const res = await call(api.url, 'POST', '/v1/merchant/register', {
    token: dev.apiKey,
    body: { merchant_id: id, agent_endpoint: endpoint },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.registration_token as string;
}

async function postFeed(merchantId: string, token: string, body: Record<string, unknown>) {
  return call(api.url, 'POST', `/v1/merchant/${merchantId}/feeds`, { token: dev.apiKey, headers: { 'x-merchant-token': token }, body });
}

async function productOf(merchantId: string, externalId: string) {
  return db
    .selectFrom('products')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('external_id', '=', externalId)
    .executeTakeFirstOrThrow();
}

async function card(productId: number) {
  const res = await call(api.url, 'GET', `/v1/products/${productId}/card`, { token: dev.apiKey });
  expect(res.status, res.text).toBe(200);
  ProductCardDocument.parse(res.body);
  return res.body;
}

describe('Shopify product CSV export', () => {
  it('one product per Handle with its variants, HTML reduced to text, drafts and unpublished products left out', async () => {
    const token = await registerMerchant('feeds-shopify');
    const content = await readFile(path.join(FIXTURES, 'shopify-products.csv'), 'utf8');
    const res = await postFeed('feeds-shopify', token, { content, store_url: 'https://fjordline.test' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ merchant_id: 'feeds-shopify', format: 'shopify_csv', added: 2, changed: 0, rejected: 2 });
    expect(res.body.rejections).toEqual([
      { line: 7, reason: 'product "feedtest-draft-mug" is draft (Status), not imported' },
      { line: 8, reason: 'product "feedtest-hidden-lamp" is not published (Published FALSE), not imported' },
    ]);

    const tee = await productOf('feeds-shopify', 'feedtest-aurora-tee');
    expect(tee.description).toBe('Soft merino tee & odour resistant.\n- Machine washable\n- Made in Portugal');
    expect(tee).toMatchObject({
      title: 'Aurora Merino Tee',
      brand: 'Fjordline',
      price_cents: 4800,
      original_price_cents: 6000,
      inventory_qty: 19,
      availability: 'in_stock',
      link: 'https://fjordline.test/products/feedtest-aurora-tee',
    });
    expect(tee.gallery).toEqual([
      'https://cdn.shop.test/aurora-front.jpg',
      'https://cdn.shop.test/aurora-back.jpg',
      'https://cdn.shop.test/aurora-detail.jpg',
    ]);
    expect(tee.tags).toEqual(expect.arrayContaining(['merino', 'base', 'layer']));

    const c = await card(tee.product_id);
    expect(c.product).toMatchObject({
      seller: { merchant_id: 'feeds-shopify' },
      availability: 'in_stock',
      price: { amount: 48, currency: 'USD', compare_at: 60 },
      price_usd: 48,
    });
    expect(
      c.product.variants.map((v: any) => [
        v.id,
        v.options.map((o: any) => `${o.name}=${o.value}`).join(','),
        v.price,
        v.compare_at_price,
        v.inventory_qty,
        v.availability,
      ]),
    ).toEqual([
      ['FT-AUR-SLATE-S', 'Color=Slate,Size=S', 48, 60, 12, 'in_stock'],
      ['FT-AUR-SLATE-M', 'Color=Slate,Size=M', 48, 60, 0, 'out_of_stock'],
      ['FT-AUR-MOSS-S', 'Color=Moss,Size=S', 52, null, 7, 'in_stock'],
    ]);
    expect(c.product.variants[2].image).toBe('https://cdn.shop.test/aurora-moss.jpg');

    // "Default Title" is Shopify's way of saying "no variants".
    const board = await productOf('feeds-shopify', 'feedtest-walnut-board');
    expect(board).toMatchObject({
      description: 'End-grain walnut.\nOiled by hand.',
      price_cents: 6500,
      original_price_cents: 8000,
      discount_label: '-19%',
      variants: [],
    });

    // The same export again changes nothing; without the board, as a full snapshot, the board becomes unavailable.
    const again = await postFeed('feeds-shopify', token, { content, store_url: 'https://fjordline.test' });
    expect(again.body).toMatchObject({ added: 0, changed: 0, unchanged: 2, removed: 0 });
    const withoutBoard = content
      .split('\n')
      .filter((l) => !l.startsWith('feedtest-walnut-board'))
      .join('\n');
    const full = await postFeed('feeds-shopify', token, {
      content: withoutBoard,
      store_url: 'https://fjordline.test',
      full_snapshot: true,
    });
    expect(full.body).toMatchObject({ added: 0, unchanged: 1, removed: 1 });
    expect(await productOf('feeds-shopify', 'feedtest-walnut-board')).toMatchObject({ availability: 'discontinued', inventory_qty: 0 });
    // Still resolvable: old cards and clicks keep working.
    expect((await card(board.product_id)).product).toMatchObject({
      availability: 'discontinued',
      seller: { merchant_id: 'feeds-shopify' },
    });

    const runs = await db.selectFrom('feed_runs').selectAll().where('merchant_id', '=', 'feeds-shopify').orderBy('started_at').execute();
    expect(runs.map((r) => [r.trigger, r.status, r.format, r.added, r.removed])).toEqual([
      ['api', 'succeeded', 'shopify_csv', 2, 0],
      ['api', 'succeeded', 'shopify_csv', 0, 0],
      ['api', 'succeeded', 'shopify_csv', 0, 1],
    ]);
  });
});

describe('Google Merchant Center', () => {
  it('TSV: item_group_id variants, sale price, availability words, Google category id and path, shipping and identifiers', async () => {
    await registerMerchant('feeds-gmc-tsv');
    const report = await importFeed(db, path.join(FIXTURES, 'merchant-center.tsv'), { merchantId: 'feeds-gmc-tsv' });
    expect(report).toMatchObject({ format: 'merchant_center_tsv', rows_read: 5, imported: 3, rejected: 1 });
    expect(report.skipped).toEqual([{ line: 5, reason: 'price is missing' }]);

    const jacket = await productOf('feeds-gmc-tsv', 'FT-GMC-RAIN');
    expect(jacket).toMatchObject({
      price_cents: 9900,
      original_price_cents: 12900,
      availability: 'in_stock',
      category_l1: 'Apparel',
      category_l2: 'Outerwear',
    });
    expect(jacket.feed_attributes).toMatchObject({
      gtin: '00812345000042',
      mpn: 'SB-RJ-S',
      condition: 'new',
      google_product_category: '5598',
      shipping: 'US:CA:Ground:4.99 USD',
      shipping_weight: '0.8 kg',
    });
    const c = await card(jacket.product_id);
    expect(c.product.seller.merchant_id).toBe('feeds-gmc-tsv');
    expect(c.product.variants.map((v: any) => [v.id, v.options, v.price, v.availability])).toEqual([
      [
        'FT-GMC-RAIN-S',
        [
          { name: 'color', value: 'Navy' },
          { name: 'size', value: 'S' },
        ],
        99,
        'in_stock',
      ],
      [
        'FT-GMC-RAIN-M',
        [
          { name: 'color', value: 'Navy' },
          { name: 'size', value: 'M' },
        ],
        129,
        'backorder',
      ],
    ]);
    expect(c.product.gallery).toEqual([
      'https://cdn.shop.test/rain.jpg',
      'https://cdn.shop.test/rain-2.jpg',
      'https://cdn.shop.test/rain-3.jpg',
    ]);

    // product_type wins over google_product_category when both are given.
    expect(await productOf('feeds-gmc-tsv', 'FT-GMC-KETTLE')).toMatchObject({
      availability: 'preorder',
      category_l1: 'Kitchen',
      category_l2: 'Kettles',
      price_cents: 8950,
    });
    expect(await productOf('feeds-gmc-tsv', 'FT-GMC-GONE')).toMatchObject({ availability: 'out_of_stock', inventory_qty: 0 });
  });

  it('RSS 2.0 with g: attributes: nested shipping, repeated additional images, item groups; a bad item reported by line', async () => {
    await registerMerchant('feeds-gmc-rss');
    const report = await importFeed(db, path.join(FIXTURES, 'merchant-center-rss.xml'), { merchantId: 'feeds-gmc-rss' });
    expect(report).toMatchObject({ format: 'merchant_center_rss', rows_read: 3, imported: 1, rejected: 1 });
    expect(report.skipped).toEqual([{ line: 46, reason: 'price "cheap" is not a price' }]);
    const boot = await productOf('feeds-gmc-rss', 'FT-RSS-BOOT');
    expect(boot).toMatchObject({
      title: 'Ridgeback Hiking Boot',
      description: 'Waterproof <b>leather</b> boot.',
      category_l1: 'Footwear',
      category_l2: 'Hiking Boots',
      price_cents: 15900,
      link: 'https://trailhead.test/p/ridgeback',
    });
    expect(boot.gallery).toEqual([
      'https://cdn.trailhead.test/ridgeback.jpg',
      'https://cdn.trailhead.test/ridgeback-side.jpg',
      'https://cdn.trailhead.test/ridgeback-sole.jpg',
    ]);
    expect(boot.feed_attributes).toMatchObject({
      shipping: [{ country: 'US', service: 'Standard', price: '0.00 USD' }],
      gtin: '00812345000066',
      google_product_category: 'Apparel & Accessories > Shoes',
    });
    const c = await card(boot.product_id);
    expect(c.product.variants.map((v: any) => [v.id, v.options[0].value, v.price, v.compare_at_price, v.availability])).toEqual([
      ['FT-RSS-BOOT-42', '42', 159, null, 'in_stock'],
      ['FT-RSS-BOOT-44', '44', 139, 159, 'out_of_stock'],
    ]);
  });

  it('Atom with g: attributes and prices in yen', async () => {
    await registerMerchant('feeds-gmc-atom');
    const report = await importFeed(db, path.join(FIXTURES, 'merchant-center-atom.xml'), { merchantId: 'feeds-gmc-atom' });
    expect(report).toMatchObject({ format: 'merchant_center_atom', rows_read: 2, imported: 2, rejected: 0 });
    const sencha = await productOf('feeds-gmc-atom', 'FT-ATOM-TEA-1');
    expect(sencha).toMatchObject({
      title: 'Sencha Loose Leaf Tea',
      description: 'First-flush sencha, 100 g tin.',
      link: 'https://kettleco.test/p/sencha',
      price_cents: 1800,
      currency: 'JPY',
      brand: 'Kettle & Co',
      category_l2: 'Coffee & Tea',
    });
    const c = await card(sencha.product_id);
    expect(c.product).toMatchObject({
      price: { amount: 1800, currency: 'JPY' },
      price_usd: null,
      seller: { merchant_id: 'feeds-gmc-atom' },
      availability: 'in_stock',
    });
    expect(await productOf('feeds-gmc-atom', 'FT-ATOM-TEA-2')).toMatchObject({
      availability: 'backorder',
      description: 'Roasted green tea.',
    });
  });
});

describe('ACP product feed (JSON Lines)', () => {
  it('nested products with variants in minor units, the flat field set, enable_search honoured', async () => {
    const token = await registerMerchant('feeds-acp');
    const content = await readFile(path.join(FIXTURES, 'acp-products.jsonl'), 'utf8');
    const res = await postFeed('feeds-acp', token, { content });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ format: 'acp_jsonl', added: 3, rejected: 2 });
    expect(res.body.rejections).toEqual([
      { line: 3, reason: 'variants is empty: an ACP product needs at least one variant' },
      { line: 5, reason: 'enable_search is false: not listed' },
    ]);
    const tee = await productOf('feeds-acp', 'FT-ACP-TEE');
    expect(tee).toMatchObject({
      description: 'A classic organic cotton tee.',
      price_cents: 1999,
      original_price_cents: 2499,
      category_l1: 'Apparel',
      link: 'https://acp.test/products/classic-tee?variant=red-m',
    });
    const c = await card(tee.product_id);
    expect(c.product).toMatchObject({ seller: { merchant_id: 'feeds-acp', name: 'Organic Threads' }, availability: 'in_stock' });
    expect(c.product.variants.map((v: any) => [v.id, v.options.map((o: any) => o.value).join('/'), v.price, v.availability])).toEqual([
      ['FT-ACP-TEE-RED-M', 'Red/Medium', 19.99, 'in_stock'],
      ['FT-ACP-TEE-RED-L', 'Red/Large', 19.99, 'out_of_stock'],
    ]);
    // ACP amounts are minor units: 12345 KWD minor units is 12.345 dinar.
    const pot = await productOf('feeds-acp', 'FT-ACP-DINAR');
    expect(pot).toMatchObject({ price_cents: 12345, currency: 'KWD' });
    expect((await card(pot.product_id)).product.price).toEqual({ amount: 12.345, currency: 'KWD', compare_at: null });
    expect(await productOf('feeds-acp', 'FT-ACP-FLAT')).toMatchObject({
      price_cents: 3499,
      inventory_qty: 40,
      feed_attributes: { seller_name: 'Summit Gear', gtin: '00012345600036' },
    });
  });
});

describe('catalogs belong to merchants', () => {
  it('the same feed id under two merchants is two products; productSeller names the seller and its agent', async () => {
    await registerMerchant('feeds-twin-a', 'http://127.0.0.1:9/agent-a');
    await registerMerchant('feeds-twin-b');
    for (const m of ['feeds-twin-a', 'feeds-twin-b']) {
      expect(await importFeed(db, path.join(FIXTURES, 'merchant-center-atom.xml'), { merchantId: m })).toMatchObject({ imported: 2 });
    }
    const a = await productOf('feeds-twin-a', 'FT-ATOM-TEA-1');
    const b = await productOf('feeds-twin-b', 'FT-ATOM-TEA-1');
    expect(a.product_id).not.toBe(b.product_id);
    expect(await productSeller(db, a.product_id)).toEqual({
      merchant_id: 'feeds-twin-a',
      agent_endpoint: 'http://127.0.0.1:9/agent-a',
      product_link: 'https://kettleco.test/p/sencha',
    });
    // Seed products belong to the gateway's catalog merchant, which has no agent to hand a checkout to.
    expect(await productSeller(db, 1)).toMatchObject({ merchant_id: 'gateway-catalog', agent_endpoint: null });
    expect(await productSeller(db, 999_999_999)).toBeUndefined();
    // A caller may name a product by the merchant's own feed id (intent mandates do), per merchant.
    expect(await catalogHasProduct(db, 'FT-ATOM-TEA-1')).toBe(true);
    expect(await catalogHasProduct(db, 'FT-ATOM-TEA-1', 'feeds-twin-b')).toBe(true);
    expect(await catalogHasProduct(db, 'FT-ATOM-TEA-1', 'gateway-catalog')).toBe(false);
    expect(await catalogHasProduct(db, String(a.product_id), 'feeds-twin-a')).toBe(true);
    expect(await catalogHasProduct(db, String(a.product_id), 'feeds-twin-b')).toBe(false);
    expect(await catalogHasProduct(db, 'FT-NO-SUCH-ID')).toBe(false);
    await expect(importFeed(db, path.join(FIXTURES, 'merchant-center-atom.xml'), { merchantId: 'feeds-nobody' })).rejects.toThrow(
      /no registered merchant "feeds-nobody"/,
    );
  });

  it('POST /v1/merchant/{merchantId}/feeds: the merchant token, exactly one of content and url, a whole-file failure as 400, a url through the outbound guard', async () => {
    const token = await registerMerchant('feeds-post');
    const other = await registerMerchant('feeds-post-other');
    expect((await postFeed('feeds-post', other, { content: 'id,title,price\nX,Y,1\n' })).status).toBe(403);
    expect((await call(api.url, 'POST', '/v1/merchant/feeds-post/feeds', { token: dev.apiKey, body: { content: 'x' } })).status).toBe(401);
    expect((await postFeed('feeds-post', token, {})).body.error).toBe('invalid_payload');
    const bad = await postFeed('feeds-post', token, { content: 'id,title\nA,B\n' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'invalid_feed', message: expect.stringMatching(/lacks required column\(s\): price/) });
    expect((await postFeed('feeds-post', token, { content: '<html><body>not a feed</body></html>' })).body.error).toBe('invalid_feed');

    const server = http.createServer((req, res) => {
      if (req.url === '/feed.tsv') {
        res.writeHead(200, { 'content-type': 'text/tab-separated-values' });
        res.end('id\ttitle\tprice\tavailability\nFT-URL-1\tLoopback Lantern\t22.00 USD\tin_stock\n');
      } else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const ok = await postFeed('feeds-post', token, { url: `http://127.0.0.1:${port}/feed.tsv` });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body).toMatchObject({ format: 'merchant_center_tsv', added: 1 });
      expect((await postFeed('feeds-post', token, { url: `http://127.0.0.1:${port}/missing` })).body).toMatchObject({
        error: 'feed_unavailable',
      });
    } finally {
      server.close();
    }
  });

  it('npm run import-feed -- --merchant ID FILE', async () => {
    await registerMerchant('feeds-cli');
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [
        path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
        'bin/import-feed.ts',
        '--merchant',
        'feeds-cli',
        'test/fixtures/feeds/merchant-center.tsv',
      ],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: scratch.url },
        timeout: 60_000,
      },
    );
    // Not a terminal and no --progress: no progress lines.
    expect(stderr).not.toContain('rows/s');
    expect(stdout).toContain('line 5: skipped: price is missing');
    expect(stdout).toMatch(/merchant-center\.tsv \(merchant_center_tsv, merchant feeds-cli\): 5 rows read .*3 imported, 0 updated/);
    expect((await productOf('feeds-cli', 'FT-GMC-RAIN')).merchant_id).toBe('feeds-cli');
    expect(
      await db.selectFrom('feed_runs').select(['trigger', 'status', 'rows_read']).where('merchant_id', '=', 'feeds-cli').execute(),
    ).toEqual([{ trigger: 'cli', status: 'succeeded', rows_read: 5 }]);
  });

  it('--progress off a terminal: rows/s and ETA on stderr, the same counts on the run record', async () => {
    await registerMerchant('feeds-progress');
    const file = path.join(tmp, 'progress.tsv');
    const rows = 30_000;
    const lines = ['id\ttitle\tprice\tlink'];
    for (let i = 0; i < rows; i++) lines.push(`P-${i}\tProgress item ${i}\t${(1 + (i % 50)).toFixed(2)} USD\thttps://shop.test/p/${i}`);
    await writeFile(file, `${lines.join('\n')}\n`);
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'bin/import-feed.ts', '--merchant', 'feeds-progress', '--progress', file],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: scratch.url },
        timeout: 120_000,
      },
    );
    expect(stderr).toMatch(/\] +\d+% [\d,]+ rows, [\d,]+ rows\/s, ETA (\d+s|\?)\n/);
    expect(stderr).toMatch(/100% 30,000 rows, [\d,]+ rows\/s, ETA 0s\n/);
    expect(stdout).toMatch(/30000 rows read .*30000 imported/);
    const run = await db.selectFrom('feed_runs').selectAll().where('merchant_id', '=', 'feeds-progress').executeTakeFirstOrThrow();
    expect(run).toMatchObject({ status: 'succeeded', rows_read: rows, added: rows });
    expect(Number(run.bytes_read)).toBe((await stat(file)).size);
    expect(Object.keys(run.timings_ms)).toEqual(expect.arrayContaining(['parse_copy', 'insert', 'commit', 'index_merge']));
    // 30,000 new products is a large import: the read-tuned GIN indexes were switched to fastupdate
    // for it and are back to fastupdate off, their pending lists merged.
    const gin = await sql<{ relname: string; reloptions: string[] }>`select relname, reloptions from pg_class
      where relname in ('products_search_tsv_idx', 'products_title_trgm_idx') order by relname`.execute(db);
    expect(gin.rows).toEqual([
      { relname: 'products_search_tsv_idx', reloptions: ['fastupdate=off'] },
      { relname: 'products_title_trgm_idx', reloptions: ['fastupdate=off'] },
    ]);
    const found = await db
      .selectFrom('products')
      .select('external_id')
      .where('merchant_id', '=', 'feeds-progress')
      .where(sql<boolean>`title % 'Progress item 29999'`)
      .execute();
    expect(found.map((p) => p.external_id)).toContain('P-29999');
  });

  it('a large import of new products: a partition of products of its own, indexed at attach; the same semantics after it', async () => {
    await registerMerchant('feeds-partition');
    const file = path.join(tmp, 'partition.tsv');
    const tsv = (rows: string[]) =>
      writeFile(file, `${['id\ttitle\tprice\tlink\titem_group_id\tsize\tavailability', ...rows].join('\n')}\n`);
    const row = (i: number, price = '9.50 USD') => `PT-${i}\tPartition lantern ${i}\t${price}\thttps://shop.test/p/${i}\t\t\tin_stock`;
    const rows = Array.from({ length: 24 }, (_, i) => row(i));
    rows.push(`PT-G1-M\tPartition tent\t30.00 USD\thttps://shop.test/g/1\tPT-G1\tM\tin_stock`);
    rows.push(`PT-G1-L\tPartition tent\t32.00 USD\thttps://shop.test/g/1\tPT-G1\tL\tout_of_stock`);
    rows.push(`PT-BAD\tNo price\t\thttps://shop.test/p/bad\t\t\tin_stock`);
    await tsv(rows);
    const partitions = async () =>
      (
        await sql<{ name: string }>`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
          where i.inhparent = 'products'::regclass order by 1`.execute(db)
      ).rows.map((r) => r.name);
    const version = async () => Number((await sql<{ v: string }>`select version as v from catalog_version`.execute(db)).rows[0]!.v);
    const v0 = await version();
    const first = await importFeed(db, file, { merchantId: 'feeds-partition', fullSnapshot: true, partitionMinProducts: 10 });
    expect(first).toMatchObject({ rows_read: 27, imported: 25, updated: 0, rejected: 1 });
    expect(first.skipped).toEqual([{ line: 28, reason: 'price is missing' }]);
    expect(Object.keys(first.timings_ms)).toEqual(expect.arrayContaining(['insert', 'index_build', 'attach', 'analyze']));
    expect(await partitions()).toEqual(['products_base', 'products_p1000000000']);
    expect(await version()).toBeGreaterThan(v0);
    // Every index of products on the new partition, and the feed id unique per merchant in it.
    const indexes = await sql<{ def: string }>`select indexdef as def from pg_indexes where tablename = 'products_p1000000000'`.execute(db);
    expect(indexes.rows.length).toBe(6);
    expect(indexes.rows.map((r) => r.def).join('\n')).toMatch(
      /UNIQUE INDEX .* \(merchant_id, external_id\) WHERE \(source = 'feed'::text\)/,
    );
    const tent = await productOf('feeds-partition', 'PT-G1');
    expect(tent.product_id).toBeGreaterThanOrEqual(1_000_000_000);
    expect(tent).toMatchObject({ availability: 'in_stock', inventory_qty: 100 });
    expect(tent.variants.map((v: { id: string }) => v.id)).toEqual(['PT-G1-M', 'PT-G1-L']);
    const c = await card(tent.product_id);
    expect(JSON.stringify(c)).toContain('PT-G1-L');
    const found = await db
      .selectFrom('products')
      .select('external_id')
      .where(sql<boolean>`search_tsv @@ websearch_to_tsquery('english', 'lantern')`)
      .where('merchant_id', '=', 'feeds-partition')
      .execute();
    expect(found.length).toBe(24);
    // Products in a large partition are referenced like any other (a proposal's foreign key).
    const fk = await sql<{ n: number }>`select count(*)::int as n from pg_constraint where confrelid = 'products'::regclass`.execute(db);
    expect(fk.rows[0]!.n).toBe(4);

    // The same file again writes nothing and builds no partition.
    const again = await importFeed(db, file, { merchantId: 'feeds-partition', fullSnapshot: true, partitionMinProducts: 10 });
    expect(again).toMatchObject({ imported: 0, updated: 25, changed: 0, unchanged: 25, removed: 0 });
    expect(await partitions()).toEqual(['products_base', 'products_p1000000000']);

    // A full snapshot without PT-0, PT-1 at a new price, 3 new products (below the partition
    // minimum: into products_base): updated in the partition, removed as unavailable, not deleted.
    rows.splice(0, 2, row(1, '11.00 USD'));
    rows.push(row(100), row(101), row(102));
    await tsv(rows);
    const third = await importFeed(db, file, { merchantId: 'feeds-partition', fullSnapshot: true, partitionMinProducts: 10 });
    expect(third).toMatchObject({ imported: 3, updated: 24, changed: 1, unchanged: 23, removed: 1 });
    expect(await partitions()).toEqual(['products_base', 'products_p1000000000']);
    expect(await productOf('feeds-partition', 'PT-0')).toMatchObject({ availability: 'discontinued', inventory_qty: 0 });
    expect((await productOf('feeds-partition', 'PT-1')).price_cents).toBe(1100);
    expect((await productOf('feeds-partition', 'PT-100')).product_id).toBeLessThan(1_000_000_000);
  });

  it('README: each format imports with the one command shown', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const commands = [...readme.matchAll(/^npm run import-feed -- (.+?)\s+# (.+)$/gm)].map((m) => ({
      args: m[1]!.split(/\s+/),
      what: m[2]!,
    }));
    expect(commands.map((c) => c.what)).toEqual([
      'Shopify product CSV export',
      'Google Merchant Center TSV',
      'Merchant Center XML (RSS 2.0; Atom alike)',
      'ACP product feed (JSON Lines)',
    ]);
    const formats = ['shopify_csv', 'merchant_center_tsv', 'merchant_center_rss', 'acp_jsonl'];
    for (const [i, c] of commands.entries()) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'bin/import-feed.ts', ...c.args],
        {
          cwd: ROOT,
          env: { ...process.env, DATABASE_URL: scratch.url },
          timeout: 60_000,
        },
      );
      expect(stdout, c.what).toMatch(new RegExp(`\\(${formats[i]}, merchant gateway-catalog\\): \\d+ rows read .* [1-9]\\d* imported`));
    }
  });
});

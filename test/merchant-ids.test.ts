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
import { ProductCardDocument } from '../src/schemas/catalog';
import { ExperienceCard } from '../src/schemas/experience';
import { findCheckout, planCheckout } from '../src/checkout/checkouts';
import { createRuntimeDeps } from '../src/runtime/steps';
import { queryMerchantAgents } from '../src/runtime/merchant-query';
import { insertRuntime } from '../src/runtime/store';
import { BUDGET_DEFAULTS } from '../src/schemas/runtime';
import { call } from './helpers/http';
import { json, readBody, startLoopback } from './helpers/loopback';
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
    expect(report.products[0]!.product_id).toBeGreaterThanOrEqual(LARGE_IMPORT_ID_BASE);
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

describe('a merchant names the product of its proposal by its own id', () => {
  let a: Merchant;
  let b: Merchant;
  let intentId: string;
  const propose = (m: Merchant, naming: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    post(
      '/v1/proposals',
      { merchant_agent_id: m.id, intent_id: intentId, offer_title: 'Trail tee', price: 48, ...naming, ...extra },
      { 'x-merchant-token': m.token },
    );

  beforeAll(async () => {
    a = await registerMerchant('ids-prop-a');
    b = await registerMerchant('ids-prop-b');
    await importFeed(a, feed('PA', 2));
    await importFeed(b, feed('PB', 2));
    const intent = await post('/v1/intents', { raw_query: 'a merino tee for trail running' });
    expect(intent.status, intent.text).toBe(201);
    intentId = intent.body.intent.intent_id;
  });

  it('by external_id, by a variant id, by a SKU, or by a single product’s feed id as variant_id: the same product as product_id', async () => {
    const tee = await productIdOf(a.id, 'PA-TEE');
    const byGateway = await propose(a, { product_id: tee });
    expect(byGateway.status, byGateway.text).toBe(201);
    const byExternal = await propose(a, { external_id: 'PA-TEE' });
    expect(byExternal.status, byExternal.text).toBe(201);
    expect(byExternal.body.proposal.product_id).toBe(tee);
    expect(byExternal.body.proposal.product_snapshot).toMatchObject({ id: String(tee), external_id: 'PA-TEE' });
    expect(byExternal.body.proposal.product_snapshot).not.toHaveProperty('variant_id');
    for (const variant of ['PA-TEE-M', 'SKU-PA-M']) {
      const res = await propose(a, { variant_id: variant });
      expect(res.status, res.text).toBe(201);
      expect(res.body.proposal.product_id).toBe(tee);
      expect(res.body.proposal.product_snapshot.variant_id).toBe(variant);
    }
    const single = await propose(a, { variant_id: 'PA-0002' }, { price: 20.02 });
    expect(single.status, single.text).toBe(201);
    expect(single.body.proposal.product_id).toBe(await productIdOf(a.id, 'PA-0002'));
  });

  it("another merchant's id is not found, nor an id the merchant does not have: 404 product_not_found naming the member", async () => {
    for (const naming of [{ external_id: 'PB-TEE' }, { variant_id: 'PB-TEE-S' }, { variant_id: 'SKU-PB-S' }, { external_id: 'PA-NOPE' }]) {
      const res = await propose(a, naming);
      expect([res.status, res.body.error], JSON.stringify(naming)).toEqual([404, 'product_not_found']);
      expect(res.body.fields).toEqual(Object.keys(naming));
      expect(res.body.message).toContain(a.id);
    }
    // The merchant's own id as external_id names the product itself; a variant's id there is not a product id.
    const variantAsProduct = await propose(a, { external_id: 'PA-TEE-S' });
    expect([variantAsProduct.status, variantAsProduct.body.error]).toEqual([404, 'product_not_found']);
    // B's own ids are B's.
    const own = await propose(b, { external_id: 'PB-TEE' });
    expect(own.status, own.text).toBe(201);
    expect(own.body.proposal.product_id).toBe(await productIdOf(b.id, 'PB-TEE'));
  });

  it('exactly one of product_id, external_id and variant_id', async () => {
    const tee = await productIdOf(a.id, 'PA-TEE');
    const none = await propose(a, {});
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ error: 'missing_fields', fields: ['product_id'] });
    const two = await propose(a, { product_id: tee, external_id: 'PA-TEE' });
    expect(two.status).toBe(400);
    expect(two.body).toMatchObject({ error: 'invalid_payload', fields: ['product_id', 'external_id'] });
    const blank = await propose(a, { external_id: ' ' });
    expect(blank.body).toMatchObject({ error: 'invalid_payload', fields: ['external_id'] });
  });
});

describe("a merchant's runtime answer names products by its own ids", () => {
  it('offers by external_id and variant_id are stored for its products; another merchant’s id is rejected in the step', async () => {
    const other = await registerMerchant('ids-rt-other');
    await importFeed(other, feed('RO', 1));
    let answer: unknown = { proposals: [] };
    const agent = await startLoopback(async (req, res) => {
      await readBody(req);
      json(res, 200, answer);
    });
    try {
      const m = await registerMerchant('ids-rt', { agent_endpoint: `${agent.url}/agent` });
      await importFeed(m, feed('RT', 2));
      const intent = await post('/v1/intents', { raw_query: 'an insulated water bottle' });
      expect(intent.status, intent.text).toBe(201);
      const intentId = intent.body.intent.intent_id as string;
      const runtimeId = `rt_ids${Date.now().toString(36)}`;
      await insertRuntime(db, {
        runtimeId,
        entryAgentId: 'api-caller',
        mode: 'assisted',
        budget: BUDGET_DEFAULTS,
        memoryRefs: [],
        skillRefs: [],
        request: {},
        developerId: dev.developerId,
        keyId: null,
      });
      answer = {
        proposals: [
          { external_id: 'RT-0001', offer_title: 'Bottle', price: 20.01 },
          { variant_id: 'SKU-RT-S', offer_title: 'Tee S', price: 48 },
          { external_id: 'RO-0001', offer_title: 'Not mine', price: 20.01 },
        ],
      };
      const deps = createRuntimeDeps({ db, config: api.config });
      const [result] = await queryMerchantAgents(deps, {
        runtimeId,
        index: 1,
        intentId,
        merchantIds: [m.id],
        maxProposals: 5,
        deadlineMs: 3000,
      });
      expect(result).toMatchObject({ status: 'succeeded', dropped: 0 });
      expect(result!.proposalIds).toHaveLength(2);
      const stored = await db.selectFrom('proposals').selectAll().where('proposal_id', 'in', result!.proposalIds).execute();
      expect(new Set(stored.map((p) => p.product_id))).toEqual(
        new Set([await productIdOf(m.id, 'RT-0001'), await productIdOf(m.id, 'RT-TEE')]),
      );
      const step = await db
        .selectFrom('commerce_runtime_steps')
        .select('output_summary')
        .where('runtime_id', '=', runtimeId)
        .where('index', '=', 1)
        .executeTakeFirstOrThrow();
      expect(step.output_summary).toContain('rejected external_id "RO-0001": product_not_found');

      // Two ids for one offer, or none, breaks the query contract: the answer is not taken.
      for (const [i, offer] of [
        { product_id: await productIdOf(m.id, 'RT-0001'), external_id: 'RT-0001', offer_title: 'Bottle', price: 20.01 },
        { offer_title: 'Bottle', price: 20.01 },
      ].entries()) {
        answer = { proposals: [offer] };
        const [bad] = await queryMerchantAgents(deps, {
          runtimeId,
          index: 2 + i,
          intentId,
          merchantIds: [m.id],
          maxProposals: 5,
          deadlineMs: 3000,
        });
        expect(bad, JSON.stringify(offer)).toMatchObject({ status: 'failed', proposalIds: [] });
      }
    } finally {
      await agent.close();
    }
  });
});

describe('cards and checkout plans carry the merchant id', () => {
  it('a Product Card Document, a match session card and an experience card show external_id (null for the seed catalog)', async () => {
    const m = await registerMerchant('ids-card');
    await importFeed(m, feed('CD', 1));
    const tee = await productIdOf(m.id, 'CD-TEE');
    const card = await get(`/v1/products/${tee}/card`);
    expect(card.status, card.text).toBe(200);
    ProductCardDocument.parse(card.body);
    expect(card.body.product).toMatchObject({ id: String(tee), external_id: 'CD-TEE' });
    const seed = await get('/v1/products/1/card');
    expect(seed.body.product).toMatchObject({ id: '1', external_id: null });

    // Proposed by its own id: the proposal's experience card and its match session card name it too.
    const intent = await post('/v1/intents', { raw_query: 'a merino tee' });
    const proposal = await post(
      '/v1/proposals',
      { merchant_agent_id: m.id, intent_id: intent.body.intent.intent_id, external_id: 'CD-TEE', offer_title: 'Tee', price: 48 },
      { 'x-merchant-token': m.token },
    );
    expect(proposal.status, proposal.text).toBe(201);
    const experience = ExperienceCard.parse(proposal.body.proposal.experience_card);
    expect(experience.products).toEqual([expect.objectContaining({ product_id: tee, external_id: 'CD-TEE' })]);
    const session = await post('/v1/match', {
      intent_id: intent.body.intent.intent_id,
      proposal_ids: [proposal.body.proposal.proposal_id],
    });
    expect(session.status, session.text).toBe(201);
    const rendered = await get(`/v1/match/${session.body.match_session.match_session_id}`);
    expect(rendered.status, rendered.text).toBe(200);
    expect(rendered.body.items.map((c: any) => c.product.external_id)).toEqual(['CD-TEE']);
  });

  it("the checkout plan's line item carries the product's external_id", async () => {
    const m = await registerMerchant('ids-chk');
    await importFeed(m, feed('CK', 1));
    const intent = await post('/v1/intents', { raw_query: 'an insulated water bottle' });
    const intentId = intent.body.intent.intent_id as string;
    const proposal = await post(
      '/v1/proposals',
      { merchant_agent_id: m.id, intent_id: intentId, variant_id: 'CK-0001', offer_title: 'Bottle', price: 20.01 },
      { 'x-merchant-token': m.token },
    );
    expect(proposal.status, proposal.text).toBe(201);
    const proposalId = proposal.body.proposal.proposal_id as string;
    const session = await post('/v1/match', { intent_id: intentId, proposal_ids: [proposalId] });
    expect(session.status, session.text).toBe(201);
    const accept = await post(`/v1/match/${session.body.match_session.match_session_id}/accept`, { proposal_id: proposalId });
    expect(accept.status, accept.text).toBe(200);
    const checkoutId = uid('chk');
    const planned = await planCheckout(
      db,
      {
        checkoutId,
        workflowId: `checkout-${checkoutId}`,
        buyer_agent_id: 'buyer-agent-1',
        intent_id: intentId,
        proposal_id: proposalId,
        match_token_id: accept.body.match_token.match_token_id,
        amount: 20.01,
        currency: 'USD',
      },
      900,
      api.url,
    );
    expect(planned.ok, JSON.stringify(planned)).toBe(true);
    const plan = (await findCheckout(db, checkoutId))!.plan as any;
    expect(plan.line_items).toEqual([
      expect.objectContaining({ product_id: await productIdOf(m.id, 'CK-0001'), external_id: 'CK-0001', quantity: 1 }),
    ]);
  });
});

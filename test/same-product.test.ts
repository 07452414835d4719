import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, type Db } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { createScratchDatabase, type ScratchDatabase } from '../src/dev/scratch-database';
import { seedCatalog } from '../src/catalog/seed';
import { RecommendResponse } from '../src/schemas/recommend';
import type { ProductCardDocumentT } from '../src/schemas/catalog';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';

/**
 * One product, many sellers (docs/RECOMMEND.md#one-product-many-sellers): the same product imported
 * by several merchants, in their own feed formats, is one card of GET /v1/recommend listing each
 * seller's offer, each with a proposal the match session can accept and an attributed link to that
 * seller. Imports write the catalog, so this file works on a scratch database with a small seeded
 * catalog of its own and an API process over it; every product is imported through the merchants'
 * feed endpoint.
 */

let scratch: ScratchDatabase;
let db: Db;
let tmp: string;
let api: TestApi;
let dev: Onboarded;

const uid = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const get = (p: string) => call(api.url, 'GET', p, { token: dev.apiKey });
const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
  call(api.url, 'POST', p, { token: dev.apiKey, body, headers });
const recommend = async (intent: string, limit = 3) => {
  const res = await get(`/v1/recommend?${new URLSearchParams({ intent, limit: String(limit) })}`);
  expect(res.status, res.text).toBe(200);
  return RecommendResponse.parse(res.body);
};

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'same-product-test-'));
  const adminUrl = Object.assign(new URL(inject('databaseUrl')), { pathname: '/postgres' }).toString();
  scratch = await createScratchDatabase({ adminUrl, tmpDir: tmp, prefix: 'cig_same_product' });
  db = createDb(scratch.url);
  await migrateToLatest(db);
  await seedCatalog(db, { products: 200 });
  // Catalog facts are read fresh on every call: the imports below change the catalog between calls.
  api = await startTestApi({
    db,
    withTemporal: false,
    env: { DATABASE_URL: scratch.url, ALLOW_PRIVATE_ENDPOINTS: 'true', CARD_CACHE_TTL_S: '0' },
  });
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

async function merchant(tag: string): Promise<Merchant> {
  const id = uid(tag);
  const res = await post('/v1/merchant/register', { merchant_id: id, agent_endpoint: 'http://127.0.0.1:9/agent' });
  expect(res.status, res.text).toBe(200);
  return { id, token: res.body.registration_token as string };
}

async function importFeed(m: Merchant, content: string, extra: Record<string, unknown> = {}) {
  const res = await post(`/v1/merchant/${m.id}/feeds`, { content, ...extra }, { 'x-merchant-token': m.token });
  expect(res.status, res.text).toBe(200);
  expect(res.body.rejected, res.text).toBe(0);
  return res.body;
}

async function productIdOf(m: Merchant, externalId: string): Promise<string> {
  const row = await db
    .selectFrom('products')
    .select('product_id')
    .where('merchant_id', '=', m.id)
    .where('external_id', '=', externalId)
    .executeTakeFirstOrThrow();
  return String(row.product_id);
}

const tsv = (rows: string[][]) => rows.map((r) => r.join('\t')).join('\n');
const SHOPIFY_HEADER =
  'Handle,Title,Body (HTML),Vendor,Type,Published,Option1 Name,Option1 Value,Option2 Name,Option2 Value,Variant SKU,Variant Inventory Qty,Variant Price,Variant Barcode,Status';

/** Every product id shown, items and their other sellers: none may appear twice. */
const shownProductIds = (items: ProductCardDocumentT[]) => items.flatMap((i) => (i.offers ?? []).map((o) => o.product_id));

describe('GET /v1/recommend: one product from several merchants is one card', () => {
  it('three merchants importing the same GTIN (Shopify, Merchant Center, ACP): one card, three offers, cheapest first, each buyable from its seller', async () => {
    const [a, b, c, d] = await Promise.all([merchant('gtin-a'), merchant('gtin-b'), merchant('gtin-c'), merchant('gtin-d')]);
    // A: a Shopify export, the barcode as a UPC-A (12 digits).
    await importFeed(
      a,
      [
        SHOPIFY_HEADER,
        `zephyrine-crew,Zephyrine Organic Cotton Crew T-Shirt,<p>Soft.</p>,Zephyrine,T-Shirts,TRUE,Title,Default Title,,,ZEP-A-1,40,24.00,036000291452,active`,
      ].join('\n'),
      { store_url: 'https://shop-a.example' },
    );
    // B: Merchant Center TSV, the same barcode as an EAN-13, and a seller name.
    await importFeed(
      b,
      tsv([
        ['id', 'title', 'description', 'link', 'price', 'brand', 'gtin', 'availability', 'seller_name'],
        [
          'B-ZEP',
          'Zephyrine organic cotton crew t-shirt',
          'Crew neck.',
          'https://shop-b.example/zep',
          '19.50 USD',
          'Zephyrine',
          '0036000291452',
          'in_stock',
          'Shop B Outfitters',
        ],
      ]),
    );
    // C: an ACP product feed, the barcode as a GTIN-14, another title.
    await importFeed(
      c,
      JSON.stringify({
        id: 'C-ZEP',
        title: 'Zephyrine Crew T-Shirt (Organic Cotton)',
        brand: 'Zephyrine',
        url: 'https://shop-c.example/products/zep',
        variants: [
          {
            id: 'C-ZEP-1',
            price: { amount: 2200, currency: 'USD' },
            availability: { available: true, status: 'in_stock' },
            barcodes: [{ type: 'GTIN', value: '00036000291452' }],
            seller: { name: 'Shop C' },
          },
        ],
      }),
    );
    // D: the same title under another GTIN: another product, its own card.
    await importFeed(
      d,
      tsv([
        ['id', 'title', 'description', 'link', 'price', 'brand', 'gtin', 'availability'],
        [
          'D-ZEP',
          'Zephyrine Organic Cotton Crew T-Shirt',
          'Crew neck.',
          'https://shop-d.example/zep',
          '21.00 USD',
          'Zephyrine',
          '4006381333931',
          'in_stock',
        ],
      ]),
    );
    const ids = {
      a: await productIdOf(a, 'zephyrine-crew'),
      b: await productIdOf(b, 'B-ZEP'),
      c: await productIdOf(c, 'C-ZEP'),
      d: await productIdOf(d, 'D-ZEP'),
    };

    const body = await recommend('zephyrine crew t-shirt');
    const shown = shownProductIds(body.items);
    expect(new Set(shown).size, 'no product shown twice').toBe(shown.length);
    const tee = body.items.find((i) => [ids.a, ids.b, ids.c].includes(i.product.id))!;
    expect(tee, JSON.stringify(body.items.map((i) => i.product.title))).toBeDefined();
    // One card for the three sellers, cheapest first, each with its seller, price, stock and link.
    expect(tee.offers).toEqual([
      expect.objectContaining({
        product_id: ids.b,
        merchant_id: b.id,
        seller: 'Shop B Outfitters',
        price_usd: 19.5,
        price: { amount: 19.5, currency: 'USD', compare_at: null },
        availability: 'in_stock',
        link: 'https://shop-b.example/zep',
      }),
      expect.objectContaining({
        product_id: ids.c,
        merchant_id: c.id,
        seller: 'Shop C',
        price_usd: 22,
        link: 'https://shop-c.example/products/zep',
      }),
      expect.objectContaining({
        product_id: ids.a,
        merchant_id: a.id,
        seller: null,
        price_usd: 24,
        inventory_qty: 40,
        link: 'https://shop-a.example/products/zephyrine-crew',
      }),
    ]);
    expect(tee.selection_story.bullets).toContain('Sold by 3 sellers, from $19.50 (Shop B Outfitters)');
    // The card's own product is one of its offers, bought through the card's own link.
    const own = tee.offers!.find((o) => o.product_id === tee.product.id)!;
    expect(own).toMatchObject({ rec_id: tee.rec_id, url: tee.cta.primary.url });
    // The other GTIN is a card of its own, with its one seller.
    const other = body.items.find((i) => i.product.id === ids.d)!;
    expect(other.offers).toEqual([expect.objectContaining({ product_id: ids.d, merchant_id: d.id, price_usd: 21 })]);

    // One proposal per offer, filed under its seller at its price; the card's own product first.
    expect(body.proposal_count).toBe(body.proposals.length);
    expect(body.proposals.length).toBe(body.items.reduce((n, i) => n + i.offers!.length, 0));
    expect(body.proposals[0]!.product_id).toBe(Number(body.items[0]!.product.id));
    for (const o of tee.offers!) {
      const p = body.proposals.find((x) => x.proposal_id === o.proposal_id)!;
      expect(p).toMatchObject({
        product_id: Number(o.product_id),
        merchant_agent_id: o.merchant_id,
        price: o.price.amount,
        currency: 'USD',
      });
    }
    const at = body.items.indexOf(tee);
    const before = body.items.slice(0, at).reduce((n, i) => n + i.offers!.length, 0);
    expect(body.proposals.slice(before, before + 3).map((p) => String(p.product_id))).toEqual([
      tee.product.id,
      ...tee.offers!.map((o) => o.product_id).filter((id) => id !== tee.product.id),
    ]);

    // The session shows the same cards (one per product) and ranks every offer in the proposals' order.
    const session = (await get(`/v1/match/${body.match_session_id}?limit=10`)).body;
    const byRecId = (x: ProductCardDocumentT, y: ProductCardDocumentT) => x.rec_id.localeCompare(y.rec_id);
    expect([...session.items].sort(byRecId)).toEqual([...body.items].sort(byRecId));
    expect(session.ranked_proposals.map((p: { proposal_id: string }) => p.proposal_id)).toEqual(body.proposals.map((p) => p.proposal_id));

    // Each other seller's offer is its own issued card: its rec_id shows that seller's listing, its
    // link records the click and forwards to that seller's page with the rec_id.
    const cheapest = tee.offers![0]!;
    if (cheapest.product_id !== tee.product.id) {
      const card = (await get(`/v1/cards/${cheapest.rec_id}`)).body as ProductCardDocumentT;
      expect(card.product).toMatchObject({ id: ids.b, seller: { merchant_id: b.id, name: 'Shop B Outfitters' } });
      expect(card.offers).toEqual(tee.offers);
    }
    const click = await call(api.url, 'GET', new URL(cheapest.url).pathname);
    expect(click.status).toBe(302);
    const location = new URL(click.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('https://shop-b.example/zep');
    expect(location.searchParams.get('rec_id')).toBe(cheapest.rec_id);

    // A shopper picks a seller: accepting that offer's proposal gives a token for it.
    const accepted = await post(`/v1/match/${body.match_session_id}/accept`, { proposal_id: cheapest.proposal_id });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.match_token).toMatchObject({ proposal_id: cheapest.proposal_id, amount: 19.5, currency: 'USD' });

    // limit=1: retrieval is asked for more than one candidate, so the one item still lists other sellers.
    const one = await recommend('zephyrine crew t-shirt', 1);
    expect(one.count).toBe(1);
    const offers = one.items[0]!.offers!.map((o) => o.product_id);
    if (one.items[0]!.product.id !== ids.d) {
      expect(offers.length).toBeGreaterThanOrEqual(2);
      for (const id of offers) expect([ids.a, ids.b, ids.c]).toContain(id);
    }
  });

  it('brand + MPN: the same part number under the same brand is one card; another part number is another product', async () => {
    const [a, b, c] = await Promise.all([merchant('mpn-a'), merchant('mpn-b'), merchant('mpn-c')]);
    const header = ['id', 'title', 'description', 'link', 'price', 'brand', 'mpn', 'availability'];
    await importFeed(
      a,
      tsv([
        header,
        [
          'A-KES',
          'Kestrel Fountain Pen, Fine Nib',
          'Steel nib.',
          'https://a.example/kes',
          '64.00 USD',
          'Quillmere',
          'QM-100/F',
          'in_stock',
        ],
      ]),
    );
    await importFeed(
      b,
      tsv([
        header,
        [
          'B-KES',
          'Quillmere Kestrel Fountain Pen (F)',
          'Steel nib.',
          'https://b.example/kes',
          '59.00 USD',
          'QUILLMERE Inc.',
          'qm100f',
          'out_of_stock',
        ],
      ]),
    );
    await importFeed(
      c,
      tsv([
        header,
        [
          'C-KES',
          'Kestrel Fountain Pen, Broad Nib',
          'Steel nib.',
          'https://c.example/kes',
          '61.00 USD',
          'Quillmere',
          'QM-100/B',
          'in_stock',
        ],
      ]),
    );
    const ids = { a: await productIdOf(a, 'A-KES'), b: await productIdOf(b, 'B-KES'), c: await productIdOf(c, 'C-KES') };

    const body = await recommend('kestrel fountain pen');
    const fine = body.items.find((i) => i.product.id === ids.a || i.product.id === ids.b)!;
    // Available before unavailable, then by price: A's 64.00 in stock before B's 59.00 out of stock.
    expect(fine.offers!.map((o) => [o.product_id, o.availability, o.price_usd])).toEqual([
      [ids.a, 'in_stock', 64],
      [ids.b, 'out_of_stock', 59],
    ]);
    const broad = body.items.find((i) => i.product.id === ids.c)!;
    expect(broad.offers!.map((o) => o.product_id)).toEqual([ids.c]);
    const shown = shownProductIds(body.items);
    expect(new Set(shown).size).toBe(shown.length);
  });

  it('title and variant: the same title and options (Merchant Center attributes, a Shopify variant) is one card; another colour is not', async () => {
    const [a, b, c] = await Promise.all([merchant('title-a'), merchant('title-b'), merchant('title-c')]);
    const header = ['id', 'title', 'description', 'link', 'price', 'color', 'size', 'availability'];
    await importFeed(
      a,
      tsv([header, ['A-APR', 'Marlowe Linen Apron', 'Linen.', 'https://a.example/apron', '38.00 USD', 'Sage', 'One Size', 'in_stock']]),
    );
    // B: a Shopify product with one variant, its options named "Colour" and "Size".
    await importFeed(
      b,
      [
        SHOPIFY_HEADER,
        'marlowe-apron,MARLOWE LINEN APRON,<p>Linen.</p>,,Aprons,TRUE,Colour,sage,Size,one size,B-APR-1,5,35.00,,active',
      ].join('\n'),
    );
    await importFeed(
      c,
      tsv([header, ['C-APR', 'Marlowe Linen Apron', 'Linen.', 'https://c.example/apron', '36.00 USD', 'Rust', 'One Size', 'in_stock']]),
    );
    const ids = { a: await productIdOf(a, 'A-APR'), b: await productIdOf(b, 'marlowe-apron'), c: await productIdOf(c, 'C-APR') };

    const body = await recommend('marlowe linen apron');
    const sage = body.items.find((i) => i.product.id === ids.a || i.product.id === ids.b)!;
    expect(sage.offers!.map((o) => [o.product_id, o.price_usd])).toEqual([
      [ids.b, 35],
      [ids.a, 38],
    ]);
    const rust = body.items.find((i) => i.product.id === ids.c)!;
    expect(rust.offers!.map((o) => o.product_id)).toEqual([ids.c]);
  });

  it("cards elsewhere list their own product as the one offer; a merchant's own duplicate listings stay apart", async () => {
    const m = await merchant('dup');
    const header = ['id', 'title', 'description', 'link', 'price', 'gtin', 'availability'];
    await importFeed(
      m,
      tsv([
        header,
        ['M-1', 'Halcyon Enamel Mug', 'Mug.', 'https://m.example/1', '12.00 USD', '4006381333931', 'in_stock'],
        ['M-2', 'Halcyon Enamel Mug', 'Mug.', 'https://m.example/2', '11.00 USD', '4006381333931', 'in_stock'],
      ]),
    );
    const body = await recommend('halcyon enamel mug');
    const mugs = body.items.filter((i) => i.product.title === 'Halcyon Enamel Mug');
    expect(mugs).toHaveLength(2);
    for (const mug of mugs) expect(mug.offers!.map((o) => o.product_id)).toEqual([mug.product.id]);

    // A product's card outside a recommendation: its own offer, no proposal.
    const productId = await productIdOf(m, 'M-1');
    const card = (await get(`/v1/products/${productId}/card`)).body as ProductCardDocumentT;
    expect(card.offers).toEqual([
      {
        product_id: productId,
        external_id: 'M-1',
        merchant_id: m.id,
        seller: null,
        title: 'Halcyon Enamel Mug',
        price_usd: 12,
        price: { amount: 12, currency: 'USD', compare_at: null },
        availability: 'in_stock',
        inventory_qty: 100,
        rec_id: card.rec_id,
        url: card.cta.primary.url,
        link: 'https://m.example/1',
        proposal_id: null,
      },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { lookupAnswer, parseCatalogId, productAnswer, productOfCard, searchAnswer } from '../../src/protocols/ucp/business/catalog';
import { profileUrlOf } from '../../src/protocols/ucp/business/platform-agent';
import type { ProductCardDocumentT } from '../../src/schemas/catalog';
import { UCP_SCHEMA, ucpSchemas } from '../helpers/ucp-schemas';

/**
 * The UCP business catalog's mapping (src/protocols/ucp/business/catalog.ts) on a card with feed
 * variants and a second seller, which the seeded catalog has none of: ids, minor units, the `exact` /
 * `featured` correlation of lookup, every answer valid against the official 2026-04-08 schemas.
 */

const schemas = ucpSchemas('2026-04-08');
const valid = (ref: string, data: unknown) =>
  expect(schemas.validate(`${UCP_SCHEMA}/shopping/${ref}`, 'response', 'read', data)).toEqual([]);

const variant = (id: string, price: number, availability: string) => ({
  id,
  sku: `SKU-${id}`,
  title: `Size ${id}`,
  options: [{ name: 'Size', value: id }],
  price,
  compare_at_price: null,
  availability,
  inventory_qty: availability === 'in_stock' ? 5 : 0,
  image: null,
});

const card = {
  rec_id: 'rec_abc',
  product: {
    id: '42',
    external_id: 'glove-1',
    title: 'Garden gloves',
    brand: 'Acme',
    price_usd: 12.99,
    original_price_usd: null,
    discount_label: null,
    main_image: 'https://cdn.example/gloves.jpg',
    gallery: ['https://cdn.example/gloves-2.jpg', 'not a url'],
    category_l1: 'Garden',
    category_l2: 'Gloves',
    price: { amount: 12.99, currency: 'USD', compare_at: null },
    availability: 'in_stock',
    seller: { merchant_id: 'm_green', name: 'Green Shop' },
    variants: [variant('S:1', 12.99, 'out_of_stock'), variant('M', 13.5, 'in_stock')],
  },
  hero_pitch: {
    one_liner: 'Gloves that last',
    why_it_wins_on_platform: '',
    key_benefits: [],
    target_audience: { persona: '', age: '', region: [] },
  },
  selection_story: { headline: '', bullets: [], platform_score: 50 },
  videos: [],
  cta: {
    primary: { label: 'Buy', url: 'http://127.0.0.1:8080/r/rec_abc' },
    secondary: { label: 'More', url: 'http://127.0.0.1:8080/r/rec_abc' },
  },
  offers: [
    {
      product_id: '77',
      external_id: null,
      merchant_id: 'm_other',
      seller: null,
      title: 'Garden gloves',
      price_usd: 11,
      price: { amount: 11, currency: 'USD', compare_at: 14 },
      availability: 'in_stock',
      inventory_qty: 3,
      rec_id: 'rec_def',
      url: 'http://127.0.0.1:8080/r/rec_def',
      link: null,
      proposal_id: null,
    },
  ],
  generated_at: '2026-11-28T00:00:00.000Z',
} as unknown as ProductCardDocumentT;

describe('UCP business catalog mapping', () => {
  it('a card is one product: feed variants as `<product>:<variant>`, other sellers as their own listing id, prices in minor units', () => {
    const p = productOfCard(card);
    expect(p.variants.map((v) => v.id)).toEqual(['42:S:1', '42:M', '77']);
    expect(p.variants.map((v) => v.price)).toEqual([
      { amount: 1299, currency: 'USD' },
      { amount: 1350, currency: 'USD' },
      { amount: 1100, currency: 'USD' },
    ]);
    expect(p.variants.map((v) => v.availability.available)).toEqual([false, true, true]);
    expect(p.variants[2]).toMatchObject({
      list_price: { amount: 1400, currency: 'USD' },
      seller: { name: 'm_other' },
      metadata: { merchant_id: 'm_other' },
    });
    expect(p.price_range).toEqual({ min: { amount: 1100, currency: 'USD' }, max: { amount: 1350, currency: 'USD' } });
    expect(p.media).toEqual([
      { type: 'image', url: 'https://cdn.example/gloves.jpg' },
      { type: 'image', url: 'https://cdn.example/gloves-2.jpg' },
    ]);
    valid('catalog_search.json#/$defs/search_response', searchAnswer([card], undefined, 'gloves'));
    // A price filter keeps the variants inside it, and drops a product with none left.
    expect(searchAnswer([card], { max: 1200 }, 'gloves').products[0]!.variants.map((v) => v.id)).toEqual(['77']);
    expect(searchAnswer([card], { max: 500 }, 'gloves').products).toEqual([]);
  });

  it('ids: a catalog product id, optionally `:<feed variant id>` split at the first colon', () => {
    expect(parseCatalogId('42')).toEqual({ productId: 42, variantId: null });
    expect(parseCatalogId('42:S:1')).toEqual({ productId: 42, variantId: 'S:1' });
    for (const bad of ['', '0', '042', 'x42', '42:', '99999999999', '-1']) expect(parseCatalogId(bad), bad).toBeNull();
  });

  it('lookup: a product id features the first available variant, a variant id is exact; both on one variant list both inputs', () => {
    const cards = new Map([['42', card]]);
    const res = lookupAnswer(['42', '42:M', '42:S:1', '42:nope', '42'], cards, undefined);
    valid('catalog_lookup.json#/$defs/lookup_response', res);
    expect(res.products).toHaveLength(1);
    expect(res.products[0]!.variants.map((v) => [v.id, v.inputs])).toEqual([
      ['42:S:1', [{ id: '42:S:1', match: 'exact' }]],
      [
        '42:M',
        [
          { id: '42', match: 'featured' },
          { id: '42:M', match: 'exact' },
        ],
      ],
    ]);
    expect(res.messages).toEqual([{ type: 'info', code: 'not_found', content: '42:nope' }]);
  });

  it('get product: a variant id puts its variant first; an unknown variant is the not_found error response', () => {
    const one = productAnswer('42:M', card, undefined);
    valid('catalog_lookup.json#/$defs/get_product_response', one);
    expect((one as { product: { variants: Array<{ id: string }> } }).product.variants[0]!.id).toBe('42:M');
    const none = productAnswer('42:nope', card, undefined);
    valid('types/error_response.json', none);
    expect(productAnswer('42', undefined, undefined)).toMatchObject({ ucp: { status: 'error' } });
  });

  it('UCP-Agent: the profile member of an RFC 8941 dictionary', () => {
    expect(profileUrlOf('profile="https://p.example/profile"')).toBe('https://p.example/profile');
    expect(profileUrlOf('version="1", profile="https://p.example/a\\"b";q=1')).toBe('https://p.example/a"b');
    for (const bad of [undefined, '', 'profile=https://p.example', 'agent="https://p.example"', `profile="${'x'.repeat(3000)}"`]) {
      expect(profileUrlOf(bad), String(bad).slice(0, 40)).toBeNull();
    }
  });
});

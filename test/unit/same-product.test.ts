import { describe, expect, it } from 'vitest';
import type { ProductVariant } from '../../src/db/schema-catalog';
import {
  compareIdentities,
  groupSameProducts,
  normaliseBrand,
  normaliseGtin,
  normaliseTitle,
  productIdentity,
  type IdentitySource,
} from '../../src/catalog/same-product';

/** One product, many sellers (src/catalog/same-product.ts): which listings are one product. */

const listing = (p: Partial<IdentitySource> & { title: string }): IdentitySource => ({
  brand: null,
  variants: [],
  feed_attributes: {},
  ...p,
});

const variant = (v: Partial<ProductVariant>): ProductVariant => ({
  id: 'v',
  sku: null,
  title: null,
  options: [],
  price_cents: 1000,
  compare_at_price_cents: null,
  availability: 'in_stock',
  inventory_qty: 1,
  image: null,
  link: null,
  gtin: null,
  mpn: null,
  ...v,
});

const verdict = (a: IdentitySource, b: IdentitySource) => compareIdentities(productIdentity(a), productIdentity(b));

describe('GTIN', () => {
  it('GTIN-8/12/13/14 compare as GTIN-14; spaces and dashes are ignored; a wrong check digit or all zeros is no GTIN', () => {
    expect(normaliseGtin('036000291452')).toBe('00036000291452');
    expect(normaliseGtin('0036000291452')).toBe('00036000291452');
    expect(normaliseGtin('00036000291452')).toBe('00036000291452');
    expect(normaliseGtin('0 36000 29145 2')).toBe('00036000291452');
    expect(normaliseGtin(4006381333931)).toBe('04006381333931');
    expect(normaliseGtin('96385074')).toBe('00000096385074');
    expect(normaliseGtin('036000291453')).toBeNull();
    expect(normaliseGtin('0000000000000')).toBeNull();
    expect(normaliseGtin('12345')).toBeNull();
    expect(normaliseGtin('ABC-123')).toBeNull();
    expect(normaliseGtin(null)).toBeNull();
  });

  it('the same GTIN in any form is one product, whatever the titles and brands say; different GTINs are two', () => {
    const a = listing({ title: 'Organic Cotton Crew T-Shirt', brand: 'Loomcraft', feed_attributes: { gtin: '036000291452' } });
    const b = listing({ title: 'Loomcraft crew tee, organic', brand: 'Loomcraft Inc.', variants: [variant({ gtin: '0036000291452' })] });
    const c = listing({ title: 'Organic Cotton Crew T-Shirt', brand: 'Loomcraft', feed_attributes: { gtin: '4006381333931' } });
    expect(verdict(a, b)).toBe('same');
    expect(verdict(a, c)).toBe('different');
    // A family of variants is the product of any of its variants' barcodes.
    const family = listing({
      title: 'Crew T-Shirt',
      variants: [variant({ id: 's', gtin: '4006381333931' }), variant({ id: 'm', gtin: '036000291452' })],
    });
    expect(verdict(a, family)).toBe('same');
  });
});

describe('brand + MPN', () => {
  it('the same MPN under the same brand is one product; another MPN, or another brand, is not', () => {
    const a = listing({ title: 'Trail Runner 2', brand: 'Acme', feed_attributes: { mpn: 'TR-200/B' } });
    expect(verdict(a, listing({ title: 'ACME Trail Runner II', brand: 'ACME, Inc.', feed_attributes: { mpn: 'tr200b' } }))).toBe('same');
    expect(verdict(a, listing({ title: 'Trail Runner 2', brand: 'Acme', feed_attributes: { mpn: 'TR-300' } }))).toBe('different');
    expect(verdict(a, listing({ title: 'Trail Runner 2', brand: 'Zenith', feed_attributes: { mpn: 'TR-200/B' } }))).toBe('different');
    // An MPN without a brand proves nothing: the titles decide.
    expect(
      verdict(listing({ title: 'Mug', feed_attributes: { mpn: 'X1' } }), listing({ title: 'Mug', feed_attributes: { mpn: 'X1' } })),
    ).toBe('same');
  });
});

describe('title and variant', () => {
  it('titles compare by their words: case, accents, punctuation, "&" and a leading brand aside', () => {
    expect(normaliseTitle('Crème Brûlée Set — 4 pcs', null)).toBe('creme brulee set 4 pcs');
    expect(normaliseTitle('Salt & Pepper Mill', null)).toBe(normaliseTitle('salt and pepper mill', null));
    expect(normaliseTitle('Loomcraft Crew Tee', 'loomcraft')).toBe('crew tee');
    expect(normaliseBrand('Loomcraft, Inc.')).toBe('loomcraft');
    expect(normaliseBrand('  ')).toBeNull();
  });

  it('same title and same variant options are one product; another colour, or a disagreeing brand, is not', () => {
    const navyM = listing({ title: 'Organic Cotton Crew T-Shirt', feed_attributes: { color: 'Navy', size: 'M' } });
    expect(verdict(navyM, listing({ title: 'organic cotton crew t shirt', feed_attributes: { size: 'm', color: 'navy' } }))).toBe('same');
    // A single-variant product states its options on the variant (Shopify "Colour" = Merchant Center "color").
    const shopify = listing({
      title: 'Organic Cotton Crew T-Shirt',
      variants: [
        variant({
          options: [
            { name: 'Colour', value: 'Navy' },
            { name: 'Size', value: 'M' },
          ],
        }),
      ],
    });
    expect(verdict(navyM, shopify)).toBe('same');
    expect(verdict(navyM, listing({ title: 'Organic Cotton Crew T-Shirt', feed_attributes: { color: 'Red', size: 'M' } }))).toBe(
      'different',
    );
    expect(verdict(listing({ title: 'Crew Tee', brand: 'A' }), listing({ title: 'Crew Tee', brand: 'B' }))).toBe('different');
    expect(verdict(listing({ title: 'Crew Tee', brand: 'A' }), listing({ title: 'Crew Tee' }))).toBe('same');
    expect(verdict(listing({ title: 'Crew Tee' }), listing({ title: 'V-Neck Tee' }))).toBe('unknown');
  });
});

describe('groupSameProducts', () => {
  const row = (id: string, merchant: string, p: IdentitySource) => ({ id, merchant, p });
  const group = (rows: ReturnType<typeof row>[]) =>
    groupSameProducts(rows, (r) => ({ merchantId: r.merchant, identity: productIdentity(r.p) })).map((g) => g.map((r) => r.id));

  it('groups in rank order, each group at its best member, one listing per merchant', () => {
    const tee = (gtin: string) => listing({ title: 'Crew Tee', feed_attributes: { gtin } });
    expect(
      group([
        row('a1', 'a', tee('036000291452')),
        row('x', 'a', listing({ title: 'Mug' })),
        row('b1', 'b', tee('0036000291452')),
        row('a2', 'a', tee('036000291452')), // the same merchant's second listing: not merged
        row('c1', 'c', tee('4006381333931')), // another GTIN under the same title: another product
        row('c2', 'c', tee('00036000291452')),
      ]),
    ).toEqual([['a1', 'b1', 'c2'], ['x'], ['a2'], ['c1']]);
  });

  it('a listing joins a group only when no member tells it apart (no chaining across conflicting codes)', () => {
    expect(
      group([
        row('a', 'a', listing({ title: 'Crew Tee', feed_attributes: { gtin: '036000291452' } })),
        row('b', 'b', listing({ title: 'Crew Tee' })), // same title, no code: joins a
        row('c', 'c', listing({ title: 'Crew Tee', feed_attributes: { gtin: '4006381333931' } })), // b says same, a says different
        row('d', 'd', listing({ title: 'Crew T-Shirt Navy', feed_attributes: { gtin: '036000291452' } })), // a says same, b unknown
      ]),
    ).toEqual([['a', 'b', 'd'], ['c']]);
  });
});

import { describe, expect, it } from 'vitest';
import { generateCatalog } from '../../src/catalog/generator';

describe('generator', () => {
  it('is deterministic: the same seed gives the same catalog, another seed a different one', () => {
    const a = generateCatalog({ seed: 7, products: 300, creators: 50, videos: 800 });
    const b = generateCatalog({ seed: 7, products: 300, creators: 50, videos: 800 });
    const c = generateCatalog({ seed: 8, products: 300, creators: 50, videos: 800 });
    expect(b).toEqual(a);
    expect(c.products.map((p) => p.title)).not.toEqual(a.products.map((p) => p.title));
    expect(a.products.map((p) => p.product_id)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
  });

  it('keeps product k the same whatever the catalog size', () => {
    const small = generateCatalog({ seed: 7, products: 100, creators: 10, videos: 0 });
    const large = generateCatalog({ seed: 7, products: 500, creators: 10, videos: 0 });
    expect(large.products.slice(0, 100)).toEqual(small.products);
  });
});

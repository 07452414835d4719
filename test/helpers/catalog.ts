import type { Db } from '../../src/db/connect';

/**
 * The first seeded product a runtime or checkout can sell again and again: priced in USD between $20
 * and $200, with more than `minInventory` in stock.
 */
export function stockedProduct(db: Db, minInventory = 20) {
  return db
    .selectFrom('products')
    .select(['product_id', 'price_cents', 'title'])
    .where('price_cents', '>', 2000)
    .where('price_cents', '<', 20_000)
    .where('currency', '=', 'USD')
    .where('inventory_qty', '>', minInventory)
    .orderBy('product_id')
    .limit(1)
    .executeTakeFirstOrThrow();
}

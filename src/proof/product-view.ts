import { centsToNumber } from '../catalog/products';
import type { ProofProductT } from '../schemas/proof';

export interface ProofProductColumns {
  product_id: number;
  title: string;
  brand: string | null;
  category_l1: string | null;
  category_l2: string | null;
  price_cents: number;
  currency: string;
}

/** The short product object both proof variants carry (prices in USD only, as in the Product object). */
export function proofProduct(p: ProofProductColumns): ProofProductT {
  return {
    id: String(p.product_id),
    title: p.title,
    brand: p.brand,
    category_l1: p.category_l1,
    category_l2: p.category_l2,
    price_usd: p.currency === 'USD' ? centsToNumber(p.price_cents) : null,
  };
}

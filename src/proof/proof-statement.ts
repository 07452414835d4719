import { formatPrice } from '../catalog/cards';

export interface OutcomeFacts {
  username: string;
  duration_s: number;
  product_title: string;
  orders: number;
  gmv_cents: number;
  views: number;
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * One sentence from the outcome numbers alone. It states what was recorded against the video
 * (orders, GMV, views and their ratio) and nothing the numbers cannot carry: no "best", no reviews,
 * no claims about the product itself.
 */
export function proofStatement(f: OutcomeFacts): string {
  const orders = `${count(f.orders)} ${f.orders === 1 ? 'order' : 'orders'}`;
  const rate = f.views > 0 ? ` (${((100 * f.orders) / f.views).toFixed(2)} orders per 100 views)` : '';
  return `@${f.username}'s ${f.duration_s}s video of ${f.product_title} is credited with ${orders} and ${formatPrice(f.gmv_cents, 'USD')} in GMV from ${count(f.views)} views${rate}.`;
}

import { z } from 'zod';
import { ProductCardDocument } from './catalog';

export const RecIdParams = z.object({ recId: z.string().min(1).max(100) });
export const ProductIdParams = z.object({ productId: z.string().min(1).max(20) });
export const CardQuery = z.object({ channel: z.string().trim().min(1).max(64).optional().meta({ description: 'Recorded with the card and its clicks.' }) });

export const CreatorParams = z.object({ username: z.string().min(1).max(100) });
export const ShowcaseQuery = z.object({
  limit: z.coerce.number().int().min(1).max(10).default(6),
  channel: z.string().trim().min(1).max(64).optional(),
});
export const ShowcaseResponse = z
  .object({ username: z.string(), count: z.number().int(), items: z.array(ProductCardDocument) })
  .meta({ id: 'ShowcaseResponse' });

import type { Db } from '../db/connect';
import { sha256Hex } from '../crypto/tokens';
import { cardNotFound } from './issued-cards';

/**
 * A click on a card's CTA: recorded against its rec_id, then on to the product page with the rec_id
 * attached, so the merchant's order can be joined back to the recommendation.
 */
export async function followCard(db: Db, recId: string, opts: { userAgent?: string; publicBaseUrl: string }): Promise<string> {
  const card = await db
    .selectFrom('rec_cards as c')
    .innerJoin('products as p', 'p.product_id', 'c.product_id')
    .select(['c.rec_id', 'c.channel', 'p.product_id', 'p.link'])
    .where('c.rec_id', '=', recId)
    .executeTakeFirst();
  if (!card) throw cardNotFound(recId);
  await db
    .insertInto('rec_clicks')
    .values({
      rec_id: card.rec_id,
      channel: card.channel,
      user_agent_hash: opts.userAgent ? sha256Hex(opts.userAgent) : null,
      clicked_at: new Date(),
    })
    .execute();
  const target = new URL(card.link ?? `${opts.publicBaseUrl}/v1/products/${card.product_id}/card`);
  target.searchParams.set('rec_id', card.rec_id);
  return target.toString();
}

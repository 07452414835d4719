import { sql } from 'kysely';
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
  const clickedAt = new Date();
  const userAgentHash = opts.userAgent ? sha256Hex(opts.userAgent) : null;
  // One statement, so atomic without a transaction: the click row and the daily rollup the
  // attribution report reads whole (UTC) days from (migration 0015).
  await sql`with click as (
              insert into rec_clicks (rec_id, channel, product_id, user_agent_hash, clicked_at)
              values (${card.rec_id}, ${card.channel}, ${card.product_id}, ${userAgentHash}, ${clickedAt}))
            insert into rec_click_daily (day, channel, product_id, clicks)
            values (${clickedAt.toISOString().slice(0, 10)}::date, ${card.channel ?? ''}, ${card.product_id}, 1)
            on conflict (day, channel, product_id) do update set clicks = rec_click_daily.clicks + 1`.execute(db);
  const target = new URL(card.link ?? `${opts.publicBaseUrl}/v1/products/${card.product_id}/card`);
  target.searchParams.set('rec_id', card.rec_id);
  return target.toString();
}

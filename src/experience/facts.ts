import { sql } from 'kysely';
import type { Db } from '../db/connect';
import { centsToNumber } from '../catalog/products';
import type { CreatorEvidenceT } from '../schemas/experience';

export const EVIDENCE_PER_CARD = 3;

/**
 * Each product's best creator videos by conversion, then GMV, in one round trip. Only videos with
 * orders count as evidence: a view count alone proves reach, not that the product sells.
 */
export async function loadCreatorEvidence(db: Db, productIds: number[]): Promise<Map<number, CreatorEvidenceT[]>> {
  const out = new Map<number, CreatorEvidenceT[]>();
  const ids = [...new Set(productIds)];
  if (!ids.length) return out;
  const { rows } = await sql<{
    product_id: number;
    task_id: string;
    username: string;
    display_name: string;
    followers: number;
    orders: number;
    views: string;
    gmv_cents: string;
    conversion_score: number;
    video_url: string | null;
    thumbnail: string | null;
  }>`
    select v.product_id, v.task_id, c.username, c.display_name, c.followers, v.orders, v.views, v.gmv_cents,
      v.conversion_score, v.video_url, v.thumbnail
    from unnest(${ids}::int[]) as want(product_id)
    cross join lateral (
      select * from videos x where x.product_id = want.product_id and x.orders > 0
      order by x.conversion_score desc, x.gmv_cents desc, x.task_id limit ${EVIDENCE_PER_CARD}
    ) v
    join creators c on c.creator_id = v.creator_id
    order by v.product_id, v.conversion_score desc, v.gmv_cents desc, v.task_id`.execute(db);
  for (const r of rows) {
    const list = out.get(r.product_id) ?? [];
    list.push({
      task_id: r.task_id,
      username: r.username,
      display_name: r.display_name,
      followers: r.followers,
      orders: r.orders,
      views: Number(r.views),
      gmv: centsToNumber(r.gmv_cents),
      conversion_score: r.conversion_score,
      video_url: r.video_url,
      thumbnail: r.thumbnail,
    });
    out.set(r.product_id, list);
  }
  return out;
}

import { sql } from 'kysely';
import { fromMinorUnits } from '../money';
import type { Db } from '../db/connect';

/**
 * A proposal's trust score (0..1, higher is safer) and its basis, frozen at submission so a ranking
 * can be audited later. Three inputs: the merchant (declared readiness and observed health), the
 * evidence attached, and how the price compares with the catalog's price for the same product.
 */

export const TRUST_WEIGHTS = { merchant: 0.4, evidence: 0.2, price_sanity: 0.4 } as const;
const HEALTH_WINDOW = 20;

export interface TrustInputs {
  readinessScore: number;
  healthProbes: { healthy: number; total: number };
  evidence: Array<{ score?: number }>;
  priceCents: number;
  catalogPriceCents: number;
  /** The catalog product's currency (its price shown in its own units). */
  catalogCurrency: string;
  sameCurrency: boolean;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** 1 inside a normal discount band, falling off when far above catalog, low when suspiciously cheap. */
export function priceSanity(ratio: number): { value: number; reason: string } {
  if (ratio < 0.5) return { value: 0.3, reason: `price is ${Math.round((1 - ratio) * 100)}% below catalog: suspiciously cheap` };
  if (ratio <= 1.1) return { value: 1, reason: 'price within the catalog band (-50% … +10%)' };
  if (ratio >= 2) return { value: 0, reason: 'price is at least twice the catalog price' };
  return { value: round(1 - (ratio - 1.1) / 0.9), reason: `price is ${Math.round((ratio - 1) * 100)}% above catalog` };
}

export function computeTrustScore(i: TrustInputs) {
  const health = i.healthProbes.total ? i.healthProbes.healthy / i.healthProbes.total : 0.5;
  const merchant = round(0.5 * (i.readinessScore / 100) + 0.5 * health);
  const evidenceStrength = i.evidence.slice(0, 5).reduce((sum, e) => sum + (e.score ?? 0.6), 0) / 5;
  const ratio = i.sameCurrency && i.catalogPriceCents > 0 ? i.priceCents / i.catalogPriceCents : 1;
  const price = i.sameCurrency ? priceSanity(ratio) : { value: 0.5, reason: 'currency differs from the catalog: not compared' };
  const score = round(
    TRUST_WEIGHTS.merchant * merchant + TRUST_WEIGHTS.evidence * evidenceStrength + TRUST_WEIGHTS.price_sanity * price.value,
  );
  return {
    score,
    risk: score >= 0.7 ? 'low' : score >= 0.45 ? 'medium' : 'high',
    basis: {
      weights: TRUST_WEIGHTS,
      merchant: {
        value: merchant,
        readiness_score: i.readinessScore,
        health_success_rate: i.healthProbes.total ? round(health) : null,
        health_probes: i.healthProbes.total,
      },
      evidence: { value: round(evidenceStrength), count: i.evidence.length },
      price_sanity: {
        value: price.value,
        ratio_to_catalog: round(ratio),
        catalog_price: fromMinorUnits(i.catalogPriceCents, i.catalogCurrency),
        reason: price.reason,
      },
    },
  };
}
export type TrustScore = ReturnType<typeof computeTrustScore>;

/** recentHealth of several merchants in one query (a merchant without probes: 0 of 0). */
export async function recentHealthOf(db: Db, merchantIds: string[]): Promise<Map<string, { healthy: number; total: number }>> {
  const ids = [...new Set(merchantIds)];
  const out = new Map(ids.map((id) => [id, { healthy: 0, total: 0 }]));
  if (!ids.length) return out;
  const { rows } = await sql<{ merchant_id: string; healthy: number; total: number }>`
    select want.merchant_id, count(*) filter (where p.healthy)::int as healthy, count(p.healthy)::int as total
    from unnest(${ids}::text[]) as want(merchant_id)
    left join lateral (
      select healthy from merchant_health_probes h where h.merchant_id = want.merchant_id
      order by h.checked_at desc limit ${HEALTH_WINDOW}
    ) p on true
    group by want.merchant_id`.execute(db);
  for (const r of rows) out.set(r.merchant_id, { healthy: r.healthy, total: r.total });
  return out;
}

export async function recentHealth(db: Db, merchantId: string): Promise<{ healthy: number; total: number }> {
  const rows = await db
    .selectFrom('merchant_health_probes')
    .select('healthy')
    .where('merchant_id', '=', merchantId)
    .orderBy('checked_at', 'desc')
    .limit(HEALTH_WINDOW)
    .execute();
  return { healthy: rows.filter((r) => r.healthy).length, total: rows.length };
}

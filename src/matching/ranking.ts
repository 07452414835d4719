import { fromMinorUnits } from '../money';
import type { ProposalRow } from './proposals';
import type { RankedProposal } from '../schemas/match';

/**
 * Match ranking (docs/MATCHING.md). Each proposal gets six component values in 0..1; the score is
 * their weighted sum. Ties break on price (lower first), then submission time, then id, so the same
 * inputs always give the same order. Every component carries the reason it got its value.
 */

export const RANKING_WEIGHTS = {
  price_fit: 0.3,
  trust: 0.25,
  inventory: 0.15,
  shipping: 0.15,
  evidence: 0.1,
  commission: 0.05,
} as const;
export type Component = keyof typeof RANKING_WEIGHTS;

export interface RankingContext {
  budgetMaxCents: number | null;
  budgetMinCents: number | null;
  budgetCurrency: string | null;
  deadline: Date | null;
  now: Date;
}

/** What ranking reads of a proposal: its offer and the facts behind its score, not its documents. */
export const RANKING_COLUMNS = [
  'proposal_id',
  'merchant_agent_id',
  'product_id',
  'offer_title',
  'price_cents',
  'currency',
  'inventory_status',
  'shipping_commitment',
  'commission_plan',
  'evidence',
  'trust_score',
  'proposal_state',
  'status',
  'created_at',
] as const satisfies readonly (keyof ProposalRow)[];
export type RankableProposal = Pick<ProposalRow, (typeof RANKING_COLUMNS)[number]>;

const INVENTORY_VALUES: Record<string, number> = { in_stock: 1, low_stock: 0.7, preorder: 0.4, unknown: 0.5, out_of_stock: 0 };

const round = (x: number) => Math.round(x * 10_000) / 10_000;
type Part = { value: number; reason: string };

function priceFit(p: RankableProposal, ctx: RankingContext, cheapestCents: number): Part {
  const m = (minor: number) => fromMinorUnits(minor, p.currency);
  const price = p.price_cents;
  if (ctx.budgetMaxCents !== null && (ctx.budgetCurrency ?? 'USD') === p.currency) {
    const max = ctx.budgetMaxCents;
    if (price > max)
      return { value: round(Math.max(0, 1 - ((price - max) / max) * 2)), reason: `${m(price)} is over the budget of ${m(max)}` };
    if (ctx.budgetMinCents !== null && price < ctx.budgetMinCents)
      return { value: 0.6, reason: `${m(price)} is under the stated minimum of ${m(ctx.budgetMinCents)}` };
    return { value: round(1 - 0.3 * (price / max)), reason: `${m(price)} is within the budget of ${m(max)}` };
  }
  return {
    value: round(cheapestCents / price),
    reason: `no budget in ${p.currency}: compared with the cheapest offer (${m(cheapestCents)})`,
  };
}

function shipping(p: RankableProposal, ctx: RankingContext): Part {
  const s = p.shipping_commitment;
  if (s.max_days === undefined) return { value: 0.4, reason: 'no delivery commitment' };
  if (ctx.deadline) {
    const arrival = ctx.now.getTime() + s.max_days * 86_400_000;
    if (arrival > ctx.deadline.getTime()) return { value: 0, reason: `delivery within ${s.max_days} days misses the intent deadline` };
  }
  const base = s.max_days <= 2 ? 1 : s.max_days <= 5 ? 0.8 : s.max_days <= 10 ? 0.5 : 0.2;
  const value = Math.min(1, base + (s.free ? 0.1 : 0));
  return { value, reason: `delivery within ${s.max_days} days${s.free ? ', free shipping' : ''}` };
}

function evidence(p: RankableProposal): Part {
  const items = p.evidence as Array<{ score?: number }>;
  const value = round(items.slice(0, 5).reduce((sum, e) => sum + (e.score ?? 0.6), 0) / 5);
  return { value, reason: `${items.length} evidence item(s)` };
}

function commission(p: RankableProposal): Part {
  const c = p.commission_plan;
  if (c.rate !== undefined) return { value: round(Math.min(c.rate / 0.2, 1)), reason: `commission rate ${c.rate}` };
  if (c.flat !== undefined)
    return {
      value: round(Math.min(c.flat / Math.max(fromMinorUnits(p.price_cents, p.currency), 1) / 0.2, 1)),
      reason: `flat commission ${c.flat}`,
    };
  return { value: 0, reason: 'no commission plan' };
}

export function rankProposals(proposals: RankableProposal[], ctx: RankingContext): RankedProposal[] {
  if (proposals.length === 0) return [];
  const cheapest = Math.min(...proposals.map((p) => p.price_cents));
  const scored = proposals.map((p) => {
    const parts: Record<Component, Part> = {
      price_fit: priceFit(p, ctx, cheapest),
      trust: {
        value: Number((p.trust_score as { score?: number }).score ?? 0.5),
        reason: `trust score (risk ${(p.trust_score as { risk?: string }).risk ?? 'unknown'})`,
      },
      inventory: { value: INVENTORY_VALUES[p.inventory_status] ?? 0.5, reason: p.inventory_status },
      shipping: shipping(p, ctx),
      evidence: evidence(p),
      commission: commission(p),
    };
    const breakdown = Object.fromEntries(
      (Object.keys(RANKING_WEIGHTS) as Component[]).map((k) => [
        k,
        {
          value: parts[k].value,
          weight: RANKING_WEIGHTS[k],
          contribution: round(parts[k].value * RANKING_WEIGHTS[k]),
          reason: parts[k].reason,
        },
      ]),
    ) as RankedProposal['breakdown'];
    const score = round(Object.values(breakdown).reduce((sum, b) => sum + b.contribution, 0));
    return { p, score, breakdown };
  });
  scored.sort(
    (a, b) =>
      b.score - a.score ||
      a.p.price_cents - b.p.price_cents ||
      a.p.created_at.getTime() - b.p.created_at.getTime() ||
      (a.p.proposal_id < b.p.proposal_id ? -1 : 1),
  );
  return scored.map(({ p, score, breakdown }, i) => ({
    rank: i + 1,
    proposal_id: p.proposal_id,
    merchant_agent_id: p.merchant_agent_id,
    product_id: p.product_id,
    offer_title: p.offer_title,
    price: fromMinorUnits(p.price_cents, p.currency),
    currency: p.currency,
    proposal_state: p.proposal_state,
    score,
    breakdown,
  }));
}

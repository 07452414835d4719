import type { Db } from '../db/connect';
import { buildProductCards, type CardFactsCache } from '../catalog/cards';
import { CATALOG_MERCHANT_ID } from '../db/migrations/0008_recommend';
import { newId } from '../ids';
import { newIntentRow } from '../matching/intents';
import { newMatchSessionRow, rankSession } from '../matching/match-sessions';
import { inventoryFromStock, productSnapshot, proposalView, type ProposalRow, type ProposalView } from '../matching/proposals';
import { computeTrustScore } from '../matching/trust-score';
import type { ProductCardDocumentT } from '../schemas/catalog';
import type { CatalogSnapshotCache } from './catalog-snapshot';
import { matchRecId } from './issued-cards';
import type { RecommendationRecorder } from './record';
import { retrieve, type Hit, type MatchTier, type Ranker, type Retrieval } from './retrieval';
import { shopperGuide } from './shopper-guide';
import { understandShoppingIntent, type ShoppingIntent } from './understand';
import { fromMinorUnits } from '../money';

export interface RecommendDeps {
  db: Db;
  publicBaseUrl: string;
  snapshots: CatalogSnapshotCache;
  cardFacts?: CardFactsCache;
  recorder: RecommendationRecorder;
  matchSessionTtlS: number;
}

/** What an API process holds that a recommendation needs (AppDeps and McpDeps satisfy it). */
export interface RecommendProcessDeps {
  db: Db;
  config: { publicBaseUrl: string; MATCH_SESSION_TTL_S: number };
  catalogSnapshots: CatalogSnapshotCache;
  cardFacts?: CardFactsCache;
  recommendations: RecommendationRecorder;
}

export const recommendDeps = (deps: RecommendProcessDeps): RecommendDeps => ({
  db: deps.db,
  publicBaseUrl: deps.config.publicBaseUrl,
  snapshots: deps.catalogSnapshots,
  cardFacts: deps.cardFacts,
  recorder: deps.recommendations,
  matchSessionTtlS: deps.config.MATCH_SESSION_TTL_S,
});

export interface RecommendInput {
  intent: string;
  limit: number;
  region?: string;
  channel?: string;
  /** The shipped ranker unless the caller (the evaluation) names another. */
  ranker?: Ranker;
}

export type RecommendNote = 'intent_plus_trending' | 'trending_suggested' | 'no_results' | null;

export interface RecommendResult {
  intent: string;
  intent_id: string;
  count: number;
  items: ProductCardDocumentT[];
  proposals: ProposalView[];
  proposal_count: number;
  match_session_id: string;
  shopper_guide: string;
  note: RecommendNote;
  match_tier: MatchTier;
  intent_source: string;
  resolved_keywords: string[];
  resolved_categories: string[];
  retrieval: { intent_hits: number; trending_fill: number };
  generated_at: string;
}

/** Where the intent's structure came from: the shopper's words, plus the region parameter when given. */
const intentSource = (si: ShoppingIntent) => (si.region?.source === 'param' ? 'natural_language+region_param' : 'natural_language');

/**
 * Intent → ranked Product Card Documents. Besides the cards, every call leaves a real trail the
 * matching endpoints can continue from: the intent, one catalog proposal per card (filed under the
 * reserved catalog merchant at catalog price) and a match session ranking them, whose top cards are
 * the very documents returned here (same rec ids).
 */
export async function recommend(deps: RecommendDeps, input: RecommendInput, caller: { developerId?: string }): Promise<RecommendResult> {
  const snapshot = await deps.snapshots.get(deps.db);
  const si = understandShoppingIntent(input.intent, {
    region: input.region ?? null,
    categories: snapshot.categories,
    priceQuartiles: snapshot.priceQuartiles,
  });
  const found = await retrieve(deps.db, si, input.limit, snapshot, { ranker: input.ranker });
  const sessionId = newId('ms');
  const cards = await buildProductCards(
    deps.db,
    found.hits.map((h) => h.product.product_id),
    { publicBaseUrl: deps.publicBaseUrl, channel: input.channel ?? null, recIdFor: matchRecId(sessionId), cache: deps.cardFacts },
  );
  const cardByProduct = new Map(cards.map((c) => [Number(c.product.id), c]));
  const now = new Date();
  const resolvedCategories = si.categories.map((c) => c.path);
  const intent = newIntentRow(
    {
      raw_query: input.intent,
      intent_tags: si.keywords.length ? si.keywords : undefined,
      budget_range: si.budget
        ? { min: centsOrUndefined(si.budget.minCents), max: centsOrUndefined(si.budget.maxCents), currency: 'USD' }
        : undefined,
      region: si.region?.code,
      target_audience: si.audience?.label,
      source_channel: input.channel ?? 'recommend',
      metadata: {
        recommend: {
          match_tier: found.tier,
          resolved_categories: resolvedCategories,
          intent_hits: found.intentHits,
          trending_fill: found.trendingFill,
        },
      },
    },
    caller,
    now,
    { resolution: { source: 'recommend_parser', summary: resolutionSummary(si, found) }, answeredBy: 'recommend' },
  );
  const validUntil = new Date(now.getTime() + deps.matchSessionTtlS * 1000);
  const proposals = found.hits.map((h, i) =>
    catalogProposal(intent.intent_id, h, i, cardByProduct.get(h.product.product_id), snapshot.catalogMerchantReadiness, now, validUntil),
  );
  // The items' order is the session's ranking (rankSession explains why), so accept's default is items[0].
  const ranking = rankSession(intent, proposals, now, { by: 'recommendation', proposalIds: proposals.map((p) => p.proposal_id) });
  await deps.recorder.record({
    intent,
    proposals,
    transitionReason: 'catalog offer for GET /v1/recommend',
    cards,
    cardSource: 'recommend',
    session: newMatchSessionRow({
      sessionId,
      intentId: intent.intent_id,
      ranking,
      now,
      ttlSeconds: deps.matchSessionTtlS,
      developerId: caller.developerId,
    }),
  });

  const note: RecommendNote =
    found.trendingFill === 0
      ? cards.length
        ? null
        : 'no_results'
      : found.intentHits === 0
        ? 'trending_suggested'
        : 'intent_plus_trending';
  return {
    intent: input.intent,
    intent_id: intent.intent_id,
    count: cards.length,
    items: cards,
    proposals: proposals.map(proposalView),
    proposal_count: proposals.length,
    match_session_id: sessionId,
    shopper_guide: shopperGuide(si, found, cards),
    note,
    match_tier: found.tier,
    intent_source: intentSource(si),
    resolved_keywords: si.keywords,
    resolved_categories: resolvedCategories,
    retrieval: { intent_hits: found.intentHits, trending_fill: found.trendingFill },
    generated_at: now.toISOString(),
  };
}

const centsOrUndefined = (cents: number | null) => (cents === null ? undefined : fromMinorUnits(cents, 'USD'));

/**
 * The catalog's own offer for a product: catalog price, committed until the session ends, with the
 * product's creator-video outcomes as its evidence.
 */
function catalogProposal(
  intentId: string,
  hit: Hit,
  position: number,
  card: ProductCardDocumentT | undefined,
  merchantReadiness: number,
  now: Date,
  validUntil: Date,
): ProposalRow {
  const p = hit.product;
  const videos = card?.videos ?? [];
  const evidence = videos.length
    ? [
        {
          type: 'creator_video_outcomes',
          source: 'catalog',
          videos: videos.length,
          orders: videos.reduce((n, v) => n + v.orders, 0),
          gmv_usd: Math.round(videos.reduce((n, v) => n + v.gmv_usd, 0) * 100) / 100,
          best_conversion_score: Math.max(...videos.map((v) => v.conversion_score)),
          score: Math.max(0.3, ...videos.map((v) => v.conversion_score)),
        },
      ]
    : [];
  const trust = computeTrustScore({
    readinessScore: merchantReadiness,
    healthProbes: { healthy: 0, total: 0 },
    evidence,
    priceCents: p.price_cents,
    catalogPriceCents: p.price_cents,
    catalogCurrency: p.currency,
    sameCurrency: true,
  });
  return {
    proposal_id: newId('prop'),
    // The real seller: the merchant whose catalog the product is in (the seed catalog's is the catalog merchant).
    merchant_agent_id: p.merchant_id ?? CATALOG_MERCHANT_ID,
    intent_id: intentId,
    product_id: p.product_id,
    offer_title: p.title,
    price_cents: p.price_cents,
    currency: p.currency,
    inventory_status: inventoryFromStock(p.inventory_qty),
    shipping_commitment: {},
    commission_plan: {},
    service_terms: { price_source: 'catalog' },
    evidence,
    valid_until: validUntil,
    proposal_score_inputs: { retrieval: hit.source, retrieval_position: position + 1 },
    product_snapshot: productSnapshot(p, now),
    metadata: { rec_id: card?.rec_id ?? null },
    provenance: 'catalog',
    status: 'active',
    proposal_state: 'quoted',
    trust_score: trust,
    asset_refs: [],
    attribution_chain: card ? [{ kind: 'rec_id', rec_id: card.rec_id }] : [],
    workflow: {},
    experience_preview: {},
    experience_card: {},
    created_at: now,
    updated_at: now,
  };
}

function resolutionSummary(si: ShoppingIntent, found: Retrieval): string {
  const parts = [`keywords [${si.keywords.join(', ')}]`];
  if (si.categories.length) parts.push(`categories ${si.categories.map((c) => c.path).join('; ')}`);
  if (si.budget) parts.push(`budget from "${si.budget.phrase}"`);
  if (si.audience) parts.push(`audience ${si.audience.label} from "${si.audience.phrase}"`);
  if (si.region)
    parts.push(
      si.region.source === 'param'
        ? `region ${si.region.code} from the region parameter`
        : `region ${si.region.code} from "${si.region.phrase}"`,
    );
  return `Read ${parts.join('; ')}. Retrieval tier ${found.tier}: ${found.intentHits} intent hit(s), ${found.trendingFill} trending fill.`;
}

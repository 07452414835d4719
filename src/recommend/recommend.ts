import type { Db } from '../db/connect';
import { buildProductCards, withOffers, type CardFactsCache } from '../catalog/cards';
import { groupSameProducts, productIdentity } from '../catalog/same-product';
import { CATALOG_MERCHANT_ID } from '../db/migrations/0008_recommend';
import { newId } from '../ids';
import { newIntentRow } from '../matching/intents';
import { newMatchSessionRow, rankSession } from '../matching/match-sessions';
import { inventoryFromStock, productSnapshot, proposalView, type ProposalRow, type ProposalView } from '../matching/proposals';
import { computeTrustScore } from '../matching/trust-score';
import type { ProductCardDocumentT } from '../schemas/catalog';
import type { CatalogSnapshot, CatalogSnapshotCache } from './catalog-snapshot';
import { matchRecId } from './issued-cards';
import type { RecommendationRecorder } from './record';
import type { SemanticTier } from './semantic';
import { retrieve, tierOf, type FusionSettings, type Hit, type MatchTier, type Ranker, type Retrieval } from './retrieval';
import { shopperGuide } from './shopper-guide';
import { understandShoppingIntent, type ShoppingIntent } from './understand';
import { fromMinorUnits } from '../money';

export interface RecommendDeps {
  db: Db;
  publicBaseUrl: string;
  snapshots: CatalogSnapshotCache;
  cardFacts?: CardFactsCache;
  recorder: RecommendationRecorder;
  /** The semantic tier; without it recommendations rank by the catalog's words alone. */
  semantic?: SemanticTier;
  matchSessionTtlS: number;
}

/** What an API process holds that a recommendation needs (AppDeps and McpDeps satisfy it). */
export interface RecommendProcessDeps {
  db: Db;
  config: { publicBaseUrl: string; MATCH_SESSION_TTL_S: number };
  catalogSnapshots: CatalogSnapshotCache;
  cardFacts?: CardFactsCache;
  recommendations: RecommendationRecorder;
  semantic?: SemanticTier;
}

export const recommendDeps = (deps: RecommendProcessDeps): RecommendDeps => ({
  db: deps.db,
  publicBaseUrl: deps.config.publicBaseUrl,
  snapshots: deps.catalogSnapshots,
  cardFacts: deps.cardFacts,
  recorder: deps.recommendations,
  semantic: deps.semantic,
  matchSessionTtlS: deps.config.MATCH_SESSION_TTL_S,
});

export interface RecommendInput {
  intent: string;
  limit: number;
  region?: string;
  channel?: string;
  /** The shipped ranker unless the caller (the evaluation) names another. */
  ranker?: Ranker;
  /** The shipped fusion settings unless the evaluation's tuner tries others. */
  fusion?: FusionSettings;
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
 * Intent → ranked Product Card Documents, one per product: the same product from several sellers is
 * one card listing each seller's offer (src/catalog/same-product.ts). Besides the cards, every call
 * leaves a real trail the matching endpoints can continue from: the intent, one catalog proposal per
 * offer (filed under its seller at catalog price) and a match session ranking them, whose top cards
 * are the very documents returned here (same rec ids).
 */
export async function recommend(deps: RecommendDeps, input: RecommendInput, caller: { developerId?: string }): Promise<RecommendResult> {
  const snapshot = await deps.snapshots.get(deps.db);
  const si = understandShoppingIntent(input.intent, {
    region: input.region ?? null,
    categories: snapshot.categories,
    priceQuartiles: snapshot.priceQuartiles,
  });
  const { found, groups } = await retrieveGrouped(deps, si, input, snapshot);
  const sessionId = newId('ms');
  // Every seller's listing gets its card (and rec_id): the item shows the best-ranked one, the others
  // are issued beside it so each offer's link is attributed and checks out as that seller's.
  const built = await buildProductCards(
    deps.db,
    groups.flat().map((h) => h.product.product_id),
    { publicBaseUrl: deps.publicBaseUrl, channel: input.channel ?? null, recIdFor: matchRecId(sessionId), cache: deps.cardFacts },
  );
  const cardByProduct = new Map(built.map((c) => [Number(c.product.id), c]));
  // A listing whose product is gone since retrieval has no card, and is no offer.
  const offered = groups.map((g) => g.filter((h) => cardByProduct.has(h.product.product_id))).filter((g) => g.length);
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
  const proposalOf = new Map<number, ProposalRow>();
  for (const h of offered.flat()) {
    const card = cardByProduct.get(h.product.product_id)!;
    proposalOf.set(
      h.product.product_id,
      catalogProposal(intent.intent_id, h, h.position, card, snapshot.catalogMerchantReadiness, now, validUntil),
    );
  }
  // One card per product, listing each seller's offer with its proposal; every seller's card lists the same offers.
  const groupCards = offered.map((g) => {
    const offers = g.map((h) => ({
      ...cardByProduct.get(h.product.product_id)!.offers![0]!,
      proposal_id: proposalOf.get(h.product.product_id)!.proposal_id,
    }));
    return g.map((h) => withOffers(cardByProduct.get(h.product.product_id)!, offers));
  });
  const cards = groupCards.map((g) => g[0]!);
  // Proposals in item order; within an item its own product's first (accept's default is items[0]), then its other offers as listed.
  const proposals = groupCards.flatMap((g) => {
    const own = Number(g[0]!.product.id);
    return [own, ...g[0]!.offers!.map((o) => Number(o.product_id)).filter((id) => id !== own)].map((id) => proposalOf.get(id)!);
  });
  // The items' order is the session's ranking (rankSession explains why), so accept's default is items[0].
  const ranking = rankSession(intent, proposals, now, { by: 'recommendation', proposalIds: proposals.map((p) => p.proposal_id) });
  await deps.recorder.record({
    intent,
    proposals,
    transitionReason: 'catalog offer for GET /v1/recommend',
    cards: [...cards, ...groupCards.flatMap((g) => g.slice(1))],
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
    shopper_guide: shopperGuide(si, found, cards, input.limit),
    note,
    match_tier: found.tier,
    intent_source: intentSource(si),
    resolved_keywords: si.keywords,
    resolved_categories: resolvedCategories,
    retrieval: { intent_hits: found.intentHits, trending_fill: found.trendingFill },
    generated_at: now.toISOString(),
  };
}

/**
 * Retrieval is asked for this many candidates per item (at most MAX_CANDIDATES), so that an item can
 * list the other sellers of its product and grouping still leaves `limit` items.
 */
const CANDIDATES_PER_ITEM = 3;
const MAX_CANDIDATES = 30;

type RankedHit = Hit & { position: number };

/**
 * The retrieval with the same product from several sellers grouped (src/catalog/same-product.ts),
 * cut to `limit` groups, and its counts (tier, intent hits, trending fill) as the items shown have
 * them. Retrieval cannot be told to skip a product's other sellers, so it is asked for 3 × `limit`
 * candidates: its answers are prefixes of longer ones, so without two sellers of one product the
 * items are the ones `limit` alone would give, and with them the items are filled from further down.
 */
async function retrieveGrouped(
  deps: RecommendDeps,
  si: ShoppingIntent,
  input: RecommendInput,
  snapshot: CatalogSnapshot,
): Promise<{ found: Retrieval; groups: RankedHit[][] }> {
  const candidates = Math.min(input.limit * CANDIDATES_PER_ITEM, Math.max(MAX_CANDIDATES, input.limit));
  const raw = await retrieve(deps.db, si, candidates, snapshot, { ranker: input.ranker, semantic: deps.semantic, fusion: input.fusion });
  const groups = groupSameProducts(
    raw.hits.map((h, position) => ({ ...h, position })),
    (h) => ({ merchantId: h.product.merchant_id ?? CATALOG_MERCHANT_ID, identity: productIdentity(h.product) }),
  ).slice(0, input.limit);
  const shown = groups.map((g) => g[0]!);
  const matched = shown.filter((h) => h.source !== 'trending');
  return {
    found: {
      hits: groups.flat(),
      // Retrieval's own definition, over the items shown.
      tier: tierOf(matched),
      intentHits: matched.length,
      trendingFill: shown.length - matched.length,
      semanticHits: matched.filter((h) => h.source === 'semantic').length,
    },
    groups,
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

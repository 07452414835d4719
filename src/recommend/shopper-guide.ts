import { formatPrice } from '../catalog/cards';
import type { ProductCardDocumentT } from '../schemas/catalog';
import { TRENDING_WINDOW_DAYS } from './catalog-snapshot';
import type { MatchTier, Retrieval } from './retrieval';
import type { ShoppingIntent } from './understand';

/** How each tier related the picks to the shopper's words, in the shopper's terms. */
const TIER_MEANING: Record<Exclude<MatchTier, 'none'>, string> = {
  raw_substring: 'your words appear in the product name',
  strict: 'every word you used matches, in the category you asked for',
  narrow: 'every word you used matches',
  fuzzy: 'the product name is a close spelling match for your words',
  broadened: 'they match some of your words or the category you asked for',
};

/** How the semantic tier's picks relate to the shopper's words. */
const BY_MEANING = "they are what you described, by meaning as well as by the catalog's words";

/**
 * Human-facing copy that says how the picks relate to the intent, built only from what was resolved
 * and retrieved, so it never claims a match that did not happen.
 */
export function shopperGuide(si: ShoppingIntent, found: Retrieval, cards: ProductCardDocumentT[], requested?: number): string {
  const lines = [`You asked for ${describeAsk(si)}.`];
  const filters = describeFilters(si);
  if (found.intentHits === 0) {
    lines.push(
      cards.length
        ? `Nothing in the catalog matches that${filters ? ` ${filters}` : ''}, so these ${cards.length} are suggestions: products trending by creator sales over the last ${TRENDING_WINDOW_DAYS} days of the catalog${filters ? ' that pass the same filters' : ''}, not matches for your request.`
        : `Nothing in the catalog matches that${filters ? ` ${filters}` : ''}, and no trending product passes ${filters ? 'those filters' : 'the filters'} either.`,
    );
  } else {
    const meaning = found.semanticHits > 0 ? BY_MEANING : TIER_MEANING[found.tier as Exclude<MatchTier, 'none'>];
    lines.push(
      found.trendingFill === 0
        ? `${found.intentHits === 1 ? 'The pick matches' : `All ${found.intentHits} picks match`}${filters ? ` ${filters}` : ''}: ${meaning}.`
        : `The first ${found.intentHits} match${filters ? ` ${filters}` : ''} (${meaning}); the other ${found.trendingFill} ${found.trendingFill === 1 ? 'is a trending product' : 'are trending products'}, shown because too few products matched.`,
    );
    // Fewer picks than asked for: said plainly, rather than filled with products that do not fit.
    if (requested !== undefined && found.trendingFill === 0 && cards.length < requested)
      lines.push(`Only ${cards.length} of the ${requested} asked for fit; nothing else is shown as a match.`);
    const top = cards[0];
    if (top) {
      const price = top.product.price_usd != null ? ` at ${formatPrice(Math.round(top.product.price_usd * 100), 'USD')}` : '';
      lines.push(
        `Top pick: ${top.product.title}${price}; ${top.selection_story.headline.charAt(0).toLowerCase()}${top.selection_story.headline.slice(1)}.`,
      );
    }
  }
  lines.push("Each card's buy link records the recommendation for attribution; pass it on unchanged.");
  return lines.join(' ');
}

function describeAsk(si: ShoppingIntent): string {
  const what = si.keywords.length
    ? `"${si.keywords.join(' ')}"`
    : si.categories.length
      ? si.categories.map((c) => c.name).join(' or ')
      : `"${si.query}"`;
  return si.audience ? `${what} for ${si.audience.label}` : what;
}

function describeFilters(si: ShoppingIntent): string {
  const parts: string[] = [];
  if (si.budget) {
    const { minCents: min, maxCents: max } = si.budget;
    if (min !== null && max !== null) parts.push(`between ${formatPrice(min, 'USD')} and ${formatPrice(max, 'USD')}`);
    else if (max !== null) parts.push(`at or under ${formatPrice(max, 'USD')}`);
    else if (min !== null) parts.push(`from ${formatPrice(min, 'USD')} up`);
  }
  if (si.region) parts.push(`shipping to ${si.region.code}`);
  return parts.join(', ');
}

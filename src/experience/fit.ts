import { formatPrice } from '../catalog/cards';
import { fromMinorUnits } from '../money';
import type { ProductRow } from '../db/schema-catalog';
import { keywordTags, normalizeQuery } from '../matching/intent-text';
import type { CreatorEvidenceT, FitStatementT } from '../schemas/experience';
import type { ExperienceContextFacts } from './preview';

/**
 * `why_it_fits_you` statements. Each one is built from numbers or words that are on record (the
 * offer, the intent, the catalog row, creator videos, the agent's own events) and carries them in
 * `data`; when the data says nothing, there is no statement. Facts against the fit are caveats.
 */

export interface Fit {
  fits: FitStatementT[];
  caveats: FitStatementT[];
}

export interface BudgetFacts {
  budget_min_cents: number | null;
  budget_max_cents: number | null;
  budget_currency: string | null;
}

const money = (cents: number, currency: string) => formatPrice(cents, currency);
const count = (n: number) => n.toLocaleString('en-US');

export function budgetFit(priceCents: number, currency: string, b: BudgetFacts, out: Fit): void {
  const { budget_min_cents: min, budget_max_cents: max } = b;
  // A budget in another currency cannot be compared without a rate the gateway does not have.
  if ((min === null && max === null) || (b.budget_currency ?? 'USD') !== currency) return;
  const major = (minor: number) => fromMinorUnits(minor, currency);
  const data = {
    price: major(priceCents),
    budget_min: min === null ? null : major(min),
    budget_max: max === null ? null : major(max),
    currency,
  };
  if (max !== null && priceCents > max) {
    out.caveats.push({
      basis: 'budget',
      statement: `At ${money(priceCents, currency)} it is ${money(priceCents - max, currency)} over your ${money(max, currency)} budget.`,
      data: { ...data, over_by: major(priceCents - max) },
    });
  } else if (min !== null && priceCents < min) {
    out.caveats.push({
      basis: 'budget',
      statement: `At ${money(priceCents, currency)} it is below the ${money(min, currency)} you set as your minimum.`,
      data: { ...data, under_min_by: major(min - priceCents) },
    });
  } else if (max !== null) {
    const under = max - priceCents;
    const range = min !== null ? `${money(min, currency)}–${money(max, currency)} budget` : `${money(max, currency)} budget`;
    const statement =
      under === 0
        ? `At ${money(priceCents, currency)} it is exactly at your ${range}.`
        : `At ${money(priceCents, currency)} it is ${money(under, currency)} under your ${range}.`;
    out.fits.push({ basis: 'budget', statement, data: { ...data, under_by: major(under) } });
  } else {
    out.fits.push({
      basis: 'budget',
      statement: `At ${money(priceCents, currency)} it is above the ${money(min!, currency)} minimum you set.`,
      data,
    });
  }
}

export function regionFit(product: Pick<ProductRow, 'region_allow'>, region: string | null, out: Fit): void {
  if (!region) return;
  const allow = product.region_allow;
  if (!allow.length)
    out.fits.push({
      basis: 'region',
      statement: `It is sold in every region, including yours (${region}).`,
      data: { region, region_allow: [] },
    });
  else if (allow.includes(region))
    out.fits.push({ basis: 'region', statement: `It is sold in your region (${region}).`, data: { region, region_allow: allow } });
  else
    out.caveats.push({
      basis: 'region',
      statement: `It is not sold in your region (${region}); it is sold in ${allow.join(', ')}.`,
      data: { region, region_allow: allow },
    });
}

export function evidenceFit(evidence: CreatorEvidenceT[], out: Fit): void {
  const top = evidence[0];
  if (!top) return;
  const orders = evidence.reduce((s, v) => s + v.orders, 0);
  const views = evidence.reduce((s, v) => s + v.views, 0);
  const others =
    evidence.length > 1
      ? ` The ${evidence.length} creator videos shown account for ${count(orders)} orders from ${count(views)} views.`
      : '';
  out.fits.push({
    basis: 'creator_evidence',
    statement: `@${top.username}'s video is credited with ${count(top.orders)} ${top.orders === 1 ? 'order' : 'orders'} from ${count(top.views)} views.${others}`,
    data: {
      videos: evidence.length,
      orders,
      views,
      top: { username: top.username, task_id: top.task_id, orders: top.orders, views: top.views, conversion_score: top.conversion_score },
    },
  });
}

/** The words a product is described by, with where each comes from. */
function vocabulary(product: Pick<ProductRow, 'title' | 'tags' | 'category_l1' | 'category_l2'>) {
  const words = (s: string | null) =>
    s
      ? normalizeQuery(s)
          .split(/[^a-z0-9]+/)
          .filter(Boolean)
      : [];
  return {
    title: new Set(words(product.title)),
    tags: new Set(product.tags.map((t) => t.toLowerCase())),
    category: new Set([...words(product.category_l1), ...words(product.category_l2)]),
  };
}

/** Singular and plural count as the same word ("candle" meets "candles"); nothing looser. */
const variants = (w: string) => [w, w.endsWith('s') ? w.slice(0, -1) : `${w}s`];

function matchWords(words: string[], vocab: ReturnType<typeof vocabulary>) {
  const matched: string[] = [];
  const foundIn = new Set<string>();
  for (const w of words) {
    let hit = false;
    for (const [field, set] of Object.entries(vocab)) {
      if (variants(w).some((v) => set.has(v))) {
        hit = true;
        foundIn.add(field);
      }
    }
    if (hit) matched.push(w);
  }
  return { matched: [...new Set(matched)], found_in: ['title', 'tags', 'category'].filter((f) => foundIn.has(f)) };
}

const quoted = (ws: string[]) => ws.map((w) => `"${w}"`).join(', ');

const CONTEXT_FIELDS = [
  ['scene', 'scene'],
  ['desired_feeling', 'desired feeling'],
  ['self_context', 'description of yourself'],
  ['visual_constraints', 'visual constraints'],
] as const;

/** Context and request words that the product's own title, tags or category contain. */
export function wordFit(
  product: Pick<ProductRow, 'title' | 'tags' | 'category_l1' | 'category_l2'>,
  ctx: ExperienceContextFacts,
  keywords: string[],
  out: Fit,
): void {
  const vocab = vocabulary(product);
  for (const [field, label] of CONTEXT_FIELDS) {
    const value = field === 'visual_constraints' ? ctx.visual_constraints?.join(', ') : ctx[field];
    if (!value) continue;
    const m = matchWords(keywordTags(normalizeQuery(value)), vocab);
    if (!m.matched.length) continue;
    out.fits.push({
      basis: field,
      statement: `Your ${label} "${value}" shares ${quoted(m.matched)} with the product's ${m.found_in.join(' and ')}.`,
      data: { context_value: value, matched_words: m.matched, found_in: m.found_in },
    });
  }
  if (keywords.length) {
    const m = matchWords(keywords, vocab);
    if (m.matched.length) {
      out.fits.push({
        basis: 'keywords',
        statement: `The product's ${m.found_in.join(' and ')} ${m.found_in.length > 1 ? 'contain' : 'contains'} ${quoted(m.matched)} from your request.`,
        data: { keywords, matched_words: m.matched, found_in: m.found_in },
      });
    }
  }
}

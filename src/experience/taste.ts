import { sql } from 'kysely';
import type { Db } from '../db/connect';
import type { DecisionEventType } from '../db/schema-supply';
import type { ExperienceFeedT, TasteProfileInput } from '../schemas/experience';
import type { Caller } from '../tenancy';

/**
 * An agent's taste, read from its own decision events on catalog products. Only the events that say
 * whether the shopper wanted the thing count; views, clicks and remixes say it was looked at.
 */
export const TASTE_WEIGHTS: Partial<Record<DecisionEventType, number>> = {
  pick: 1,
  confirm: 2,
  purchase: 3,
  nope: -1,
  return: -2,
  complaint: -2,
};
const TASTE_TYPES = Object.keys(TASTE_WEIGHTS) as DecisionEventType[];

/** The newest events read; older taste fades out rather than being averaged in forever. */
export const TASTE_EVENT_LIMIT = 1000;
/** Positive categories and brands carried into the effective profile. */
const TOP_N = 5;
/** A category or brand is avoided once its net score is this low (two nopes, or one return). */
const AVOID_AT = -2;
/** The derived price band spans the liked prices widened by this share on each side. */
const BAND_MARGIN = 0.25;

export type DerivedTaste = ExperienceFeedT['taste_profile']['derived'];
export type EffectiveTaste = ExperienceFeedT['taste_profile']['effective'];

interface TasteEvent {
  product_id: number;
  event_type: DecisionEventType;
  category_l2: string | null;
  brand: string | null;
  price_cents: number;
  currency: string;
}

type Tally = Map<string, { score: number; events: number }>;

function add(t: Tally, name: string | null, w: number) {
  if (!name) return;
  const cur = t.get(name) ?? { score: 0, events: 0 };
  t.set(name, { score: cur.score + w, events: cur.events + 1 });
}

const ranked = (t: Tally) =>
  [...t.entries()]
    .map(([name, v]) => ({ name, score: v.score, events: v.events }))
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));

/**
 * The taste an agent's decisions tell, from the events the caller's developer recorded only: an
 * agent id is a name any developer may use, and another developer's events are not theirs to read
 * (docs/TENANCY.md).
 */
export async function deriveTaste(db: Db, agentId: string, caller: Caller): Promise<DerivedTaste> {
  const { rows } = await sql<TasteEvent>`
    select e.product_id, e.event_type, p.category_l2, p.brand, p.price_cents, p.currency
    from decision_events e join products p on p.product_id = e.product_id
    where e.agent_id = ${agentId} and e.event_type = any(${TASTE_TYPES}::text[])
      ${caller.kind === 'api' ? sql`and e.developer_id is not distinct from ${caller.developerId}` : sql``}
    order by e.created_at desc, e.feedback_id desc
    limit ${TASTE_EVENT_LIMIT}`.execute(db);
  const categories: Tally = new Map();
  const brands: Tally = new Map();
  const liked: number[] = [];
  const latest = new Map<number, number>();
  for (const e of rows) {
    const w = TASTE_WEIGHTS[e.event_type]!;
    add(categories, e.category_l2, w);
    add(brands, e.brand, w);
    if (w > 0 && e.currency === 'USD') liked.push(e.price_cents);
    if (!latest.has(e.product_id)) latest.set(e.product_id, w);
  }
  const band = liked.length
    ? { min: Math.floor(Math.min(...liked) * (1 - BAND_MARGIN)) / 100, max: Math.ceil(Math.max(...liked) * (1 + BAND_MARGIN)) / 100 }
    : null;
  return {
    event_count: rows.length,
    categories: ranked(categories),
    brands: ranked(brands),
    price_band: band,
    excluded_product_ids: [...latest.entries()]
      .filter(([, w]) => w < 0)
      .map(([id]) => id)
      .sort((a, b) => a - b),
  };
}

/** Explicit values win member by member; what the caller left out comes from the events. */
export function effectiveTaste(derived: DerivedTaste, explicit: TasteProfileInput): EffectiveTaste {
  const positive = (list: DerivedTaste['categories']) =>
    list
      .filter((c) => c.score > 0)
      .slice(0, TOP_N)
      .map((c) => c.name);
  const avoided = (list: DerivedTaste['categories']) => list.filter((c) => c.score <= AVOID_AT).map((c) => c.name);
  const band = explicit.price_band ? { min: explicit.price_band.min ?? null, max: explicit.price_band.max ?? null } : derived.price_band;
  return {
    categories: explicit.categories ?? positive(derived.categories),
    brands: explicit.brands ?? positive(derived.brands),
    keywords: (explicit.keywords ?? []).map((k) => k.toLowerCase()),
    price_band: band,
    avoid_categories: explicit.avoid_categories ?? avoided(derived.categories),
    avoid_brands: explicit.avoid_brands ?? avoided(derived.brands),
  };
}

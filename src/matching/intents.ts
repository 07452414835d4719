import type { Db } from '../db/connect';
import type { IntentsTable } from '../db/schema-matching';
import type { Selectable } from 'kysely';
import { AppError } from '../errors';
import { newId } from '../ids';
import type { IntentCreateInput } from '../schemas/intents';
import { keywordTags, normalizeQuery, parseBudget, parseRegion } from './intent-text';
import { fromCents, toCents } from './money';
import { iso } from '../time';

export type IntentRow = Selectable<IntentsTable>;

export const intentNotFound = (id: string) => new AppError(404, 'intent_not_found', `No intent '${id}'.`);


export function intentView(i: IntentRow) {
  const hasBudget = i.budget_min_cents !== null || i.budget_max_cents !== null;
  return {
    intent_id: i.intent_id,
    raw_query: i.raw_query,
    normalized_query: i.normalized_query,
    intent_tags: i.intent_tags,
    target_audience: i.target_audience,
    budget_range: hasBudget ? { min: fromCents(i.budget_min_cents), max: fromCents(i.budget_max_cents), currency: i.budget_currency ?? 'USD' } : null,
    region: i.region,
    constraints: i.constraints,
    source_channel: i.source_channel,
    resolution_source: i.resolution_source,
    resolution_summary: i.resolution_summary,
    metadata: i.metadata,
    created_at: iso(i.created_at),
    updated_at: iso(i.updated_at),
    time_window: i.time_window,
    asset_refs: i.asset_refs,
    attribution_chain: i.attribution_chain,
    workflow: i.workflow,
    experience_context: i.experience_context,
  };
}
export type IntentView = ReturnType<typeof intentView>;

/**
 * Explicit fields win; what is missing is read from the text, and `resolution_summary` says what
 * was derived so an agent (or an auditor) can see why the intent looks the way it does.
 */
export function resolveIntent(input: IntentCreateInput) {
  const normalized = normalizeQuery(input.raw_query);
  const derived: string[] = [];
  let budget = input.budget_range ? { min: input.budget_range.min, max: input.budget_range.max, currency: input.budget_range.currency } : undefined;
  const parsedBudget = parseBudget(input.raw_query);
  if (!budget && parsedBudget) {
    budget = { min: parsedBudget.min, max: parsedBudget.max, currency: 'USD' };
    derived.push(`budget from "${parsedBudget.phrase}"`);
  }
  let region = input.region;
  if (!region) {
    const parsed = parseRegion(input.raw_query);
    if (parsed) {
      region = parsed.code;
      derived.push(`region ${parsed.code} from "${parsed.phrase}"`);
    }
  }
  let tags = input.intent_tags?.map((t) => t.toLowerCase());
  if (!tags?.length) {
    tags = keywordTags(normalized, parsedBudget?.phrase);
    derived.push(`${tags.length} tag(s) from the query`);
  }
  return {
    normalized,
    tags: [...new Set(tags)],
    budget,
    region,
    resolution_source: derived.length ? 'gateway_parser' : 'explicit',
    resolution_summary: derived.length ? `Derived ${derived.join('; ')}.` : 'All structured fields were given explicitly.',
  };
}

export async function createIntent(db: Db, input: IntentCreateInput, caller: { developerId?: string }): Promise<IntentRow> {
  const r = resolveIntent(input);
  return db
    .insertInto('intents')
    .values({
      intent_id: newId('int'),
      raw_query: input.raw_query,
      normalized_query: r.normalized,
      intent_tags: r.tags,
      target_audience: input.target_audience ?? null,
      budget_min_cents: r.budget?.min !== undefined ? toCents(r.budget.min) : null,
      budget_max_cents: r.budget?.max !== undefined ? toCents(r.budget.max) : null,
      budget_currency: r.budget ? r.budget.currency : null,
      region: r.region ?? null,
      constraints: JSON.stringify(input.constraints ?? []),
      source_channel: input.source_channel ?? null,
      resolution_source: r.resolution_source,
      resolution_summary: r.resolution_summary,
      metadata: JSON.stringify(input.metadata ?? {}),
      time_window: input.time_window ? JSON.stringify(input.time_window) : null,
      asset_refs: JSON.stringify(input.asset_refs ?? []),
      attribution_chain: JSON.stringify(input.attribution_chain ?? []),
      workflow: JSON.stringify(input.workflow ?? {}),
      experience_context: JSON.stringify(input.experience_context ?? {}),
      developer_id: caller.developerId ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function getIntent(db: Db, intentId: string): Promise<IntentRow> {
  const i = await db.selectFrom('intents').selectAll().where('intent_id', '=', intentId).executeTakeFirst();
  if (!i) throw intentNotFound(intentId);
  return i;
}


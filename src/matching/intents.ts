import type { Db } from '../db/connect';
import type { IntentAnsweredBy, IntentsTable } from '../db/schema-matching';
import type { Selectable } from 'kysely';
import { AppError } from '../errors';
import { newId } from '../ids';
import type { IntentCreateInput } from '../schemas/intents';
import { keywordTags, normalizeQuery, parseBudget, parseRegion } from './intent-text';
import { fromMinorUnitsOrNull, toMinorUnits } from '../money';
import { iso } from '../time';
import { mayAct, mayRead, SYSTEM, type Caller } from '../tenancy';

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
    budget_range: hasBudget
      ? {
          min: fromMinorUnitsOrNull(i.budget_min_cents, i.budget_currency ?? 'USD'),
          max: fromMinorUnitsOrNull(i.budget_max_cents, i.budget_currency ?? 'USD'),
          currency: i.budget_currency ?? 'USD',
        }
      : null,
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
  let budget = input.budget_range
    ? { min: input.budget_range.min, max: input.budget_range.max, currency: input.budget_range.currency }
    : undefined;
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
    tags = keywordTags(input.raw_query, parsedBudget?.phrase);
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

export interface NewIntentOptions {
  /**
   * For callers that read the text themselves (GET /v1/recommend) and pass what they found as
   * explicit fields: records that reading instead of calling those fields explicit.
   */
  resolution?: { source: string; summary: string };
  /** The gateway answers this intent itself: Intent.Surge never dispatches it. */
  answeredBy?: IntentAnsweredBy;
  /**
   * A fixed id (derived from an Idempotency-Key claim or a runtime id): creating it again returns
   * the intent already stored under it, so a retried create after a crash makes no second intent.
   */
  intentId?: string;
}

/** The stored row of a new intent, JSON members as values. */
export function newIntentRow(
  input: IntentCreateInput,
  caller: { developerId?: string },
  now: Date,
  opts: NewIntentOptions = {},
): IntentRow {
  const { resolution } = opts;
  const r = {
    ...resolveIntent(input),
    ...(resolution ? { resolution_source: resolution.source, resolution_summary: resolution.summary } : {}),
  };
  return {
    intent_id: opts.intentId ?? newId('int'),
    raw_query: input.raw_query,
    normalized_query: r.normalized,
    intent_tags: r.tags,
    target_audience: input.target_audience ?? null,
    budget_min_cents: r.budget?.min !== undefined ? toMinorUnits(r.budget.min, r.budget.currency) : null,
    budget_max_cents: r.budget?.max !== undefined ? toMinorUnits(r.budget.max, r.budget.currency) : null,
    budget_currency: r.budget ? r.budget.currency : null,
    region: r.region ?? null,
    constraints: input.constraints ?? [],
    source_channel: input.source_channel ?? null,
    resolution_source: r.resolution_source,
    resolution_summary: r.resolution_summary,
    metadata: input.metadata ?? {},
    time_window: input.time_window ?? null,
    asset_refs: input.asset_refs ?? [],
    attribution_chain: input.attribution_chain ?? [],
    workflow: input.workflow ?? {},
    experience_context: input.experience_context ?? {},
    developer_id: caller.developerId ?? null,
    surge_started_at: null,
    answered_by: opts.answeredBy ?? null,
    created_at: now,
    updated_at: now,
  };
}

export async function createIntent(
  db: Db,
  input: IntentCreateInput,
  caller: { developerId?: string },
  opts: NewIntentOptions = {},
): Promise<IntentRow> {
  const row = newIntentRow(input, caller, new Date(), opts);
  const json = (v: unknown) => (v === null ? null : JSON.stringify(v));
  const inserted = await db
    .insertInto('intents')
    .values({
      ...row,
      constraints: json(row.constraints)!,
      metadata: json(row.metadata)!,
      time_window: json(row.time_window),
      asset_refs: json(row.asset_refs)!,
      attribution_chain: json(row.attribution_chain)!,
      workflow: json(row.workflow)!,
      experience_context: json(row.experience_context)!,
    })
    .$if(Boolean(opts.intentId), (q) => q.onConflict((oc) => oc.column('intent_id').doNothing()))
    .returningAll()
    .executeTakeFirst();
  // A conflict is this keyed request's own intent, created by its first attempt.
  return inserted ?? getIntent(db, row.intent_id, SYSTEM);
}

/**
 * An intent the caller may read (docs/TENANCY.md): its developer's keys, and a merchant (by its
 * registration token) the intent was dispatched to or that proposed to it. Anyone else: 404, as if
 * it did not exist.
 */
export async function getIntent(db: Db, intentId: string, caller: Caller): Promise<IntentRow> {
  const i = await db.selectFrom('intents').selectAll().where('intent_id', '=', intentId).executeTakeFirst();
  if (!i) throw intentNotFound(intentId);
  if (mayRead(caller, i.developer_id)) return i;
  if (caller.kind === 'api' && caller.merchantId && (await merchantWasSent(db, i.intent_id, caller.merchantId))) return i;
  throw intentNotFound(intentId);
}

/** An intent the caller may act on (match, mandate, checkout, events): its owner only. */
export async function getOwnIntent(db: Db, intentId: string, caller: Caller): Promise<IntentRow> {
  const i = await db.selectFrom('intents').selectAll().where('intent_id', '=', intentId).executeTakeFirst();
  if (!i || !mayAct(caller, i.developer_id)) throw intentNotFound(intentId);
  return i;
}

/** The intent reached the merchant: a delivery was planned for it, or the merchant proposed to it. */
export async function merchantWasSent(db: Db, intentId: string, merchantId: string): Promise<boolean> {
  const hit = await db
    .selectFrom('deliveries')
    .select('delivery_id as id')
    .where('intent_id', '=', intentId)
    .where('merchant_id', '=', merchantId)
    .union(
      db.selectFrom('proposals').select('proposal_id as id').where('intent_id', '=', intentId).where('merchant_agent_id', '=', merchantId),
    )
    .limit(1)
    .executeTakeFirst();
  return hit !== undefined;
}

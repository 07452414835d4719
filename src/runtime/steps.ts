import { sql } from 'kysely';
import type { Config } from '../config';
import type { Db } from '../db/connect';
import type { BudgetConsumed } from '../db/schema-runtime';
import { CATALOG_MERCHANT_ID } from '../db/migrations/0008_recommend';
import { loadSigningKeys, type SigningKeys } from '../crypto/signing-keys';
import { subscribedMerchants } from '../dispatch/subscribers';
import { answersQueries, takesDeliveriesSql } from '../registry/merchant-protocol';
import { createIntent, getIntent, type IntentRow } from '../matching/intents';
import type { MerchantRow } from '../db/schema';
import { submitProposal, type ProposalRow } from '../matching/proposals';
import { createMatchSession, type MatchSessionRow } from '../matching/match-sessions';
import { acceptMatch } from '../matching/match-tokens';
import { SYSTEM } from '../tenancy';
import { authorizePayment } from '../matching/payments';
import type { RankedProposal } from '../schemas/match';
import { CatalogSnapshotCache } from '../recommend/catalog-snapshot';
import { CardFactsCache } from '../catalog/cards';
import { retrieve } from '../recommend/retrieval';
import { understandShoppingIntent } from '../recommend/understand';
import { IntentCreateBody } from '../schemas/intents';
import { finishRuntime, getRuntimeRow, recordStep, runtimeNotFound } from './store';
import { fromMinorUnits } from '../money';
import { seededId } from '../idempotency/store';
import { paymentModeOfToken } from './payment';

/**
 * The commerce runtime's steps (docs/RUNTIME.md): every I/O of the loop, each called by one activity
 * of activities/runtime.ts. Each one that is an AgentStep records its step (keyed by runtime and
 * index, so a retry rewrites it) and is idempotent: a retry finds what the first try stored (the
 * intent on the run, proposals tagged with the step, the session on the run, the live token of the
 * proposal) instead of doing it again. Business failures are AppErrors (the activity types them).
 */

/** Most merchants one resolve step lists (the query budget cuts it further). */
const MERCHANT_CANDIDATES = 50;
/** The agent id of the gateway's own steps. */
export const MATCHER_AGENT_ID = 'gateway-matcher';

export const consumedOf = (iterations: number, merchant_queries = 0, proposal_versions = 0): BudgetConsumed => ({
  iterations,
  merchant_queries,
  proposal_versions,
});

export interface StepRef {
  runtimeId: string;
  index: number;
}

export interface ResolvedIntent {
  intentId: string;
  tags: string[];
  merchants: string[];
}

export interface QueryResult {
  /** skipped: the merchant agent said it does not answer runtime queries (src/runtime/merchant-query.ts). */
  status: 'succeeded' | 'failed' | 'timeout' | 'skipped';
  proposalIds: string[];
  /** Proposals offered beyond what the proposal-version budget let the loop keep. */
  dropped: number;
}

export interface RankResult {
  matchSessionId: string;
  chosenProposalId: string | null;
  /** What the chosen proposal sells, shown with the run's result (absent from runs recorded before it was added). */
  chosen?: ChosenOffer | null;
}

/** The chosen proposal's offer: what the run found, from whom, for how much. */
export interface ChosenOffer {
  product: string;
  merchant_id: string;
  price: number;
  currency: string;
}

export const trustOf = (p: Pick<ProposalRow, 'trust_score'>) =>
  p.trust_score as { score?: number; risk?: string; basis?: { price_sanity?: { reason?: string } } };

/** Proposals a step already stored (a retried activity returns them instead of asking again). */
export async function proposalsOfStep(db: Db, intentId: string, stepId: string): Promise<ProposalRow[]> {
  return db
    .selectFrom('proposals')
    .selectAll()
    .where('intent_id', '=', intentId)
    .where(sql<boolean>`metadata->>'runtime_step' = ${stepId}`)
    .orderBy('created_at')
    .execute();
}

/** The step row of (runtime, index) when an earlier attempt recorded it. */
export async function recordedStep(db: Db, s: StepRef) {
  return db
    .selectFrom('commerce_runtime_steps')
    .select(['status', 'output_summary'])
    .where('runtime_id', '=', s.runtimeId)
    .where('index', '=', s.index)
    .executeTakeFirst();
}

/** The intent a run creates: named after the run, so a retried resolve step finds it instead of creating another. */
export const runtimeIntentId = (runtimeId: string) => seededId(runtimeId, 'int');

export interface RuntimeDeps {
  db: Db;
  config: Config;
  /** Loaded once per worker, on first use. */
  signingKeys(): Promise<SigningKeys>;
  snapshots: CatalogSnapshotCache;
  /** The rank step's card facts, cached as the API caches them for POST /v1/match (CARD_CACHE_TTL_S). */
  cardFacts?: CardFactsCache;
}

/** The runtime steps' dependencies, built once per worker. */
export function createRuntimeDeps({ db, config }: { db: Db; config: Config }): RuntimeDeps {
  let keys: Promise<SigningKeys> | undefined;
  const signingKeys = () => (keys ??= loadSigningKeys(config));
  return {
    db,
    config,
    signingKeys,
    snapshots: new CatalogSnapshotCache(config.CARD_CACHE_TTL_S),
    cardFacts: config.CARD_CACHE_TTL_S > 0 ? new CardFactsCache(db, config.CARD_CACHE_TTL_S) : undefined,
  };
}

/** A step's id: the runtime and its index (a retried step keeps it). */
export const stepId = (s: StepRef) => `${s.runtimeId}-s${s.index}`;

/**
 * Step `resolve_intent`: store the intent (once per run) and list the merchant agents it matches,
 * as rows: the merchant-query steps that follow in the same activity read neither again.
 */
export async function resolveIntent(deps: RuntimeDeps, s: StepRef): Promise<{ intent: IntentRow; merchants: MerchantRow[] }> {
  const { db } = deps;
  const startedAt = new Date();
  const run = await getRuntimeRow(db, s.runtimeId);
  let intent = run.intent_id ? await getIntent(db, run.intent_id, SYSTEM) : null;
  if (!intent) {
    const body = IntentCreateBody.parse((run.request as { intent?: unknown }).intent);
    intent = await createIntent(
      db,
      { ...body, source_channel: body.source_channel ?? 'commerce_runtime', workflow: { ...body.workflow, runtime_id: s.runtimeId } },
      { developerId: run.developer_id ?? undefined },
      // The runtime asks the merchants itself: Intent.Surge does not also fan the intent out.
      { answeredBy: 'commerce_runtime', intentId: runtimeIntentId(s.runtimeId) },
    );
  }
  // Only merchants that can answer a query are asked (src/registry/merchant-protocol.ts); the others
  // (redirect-only shops, ACP sellers, placeholders) are represented by their imported catalog.
  const merchants = (
    await subscribedMerchants(db, intent)
      .selectAll()
      .where('merchant_id', '!=', CATALOG_MERCHANT_ID)
      .where((eb) => eb.or([takesDeliveriesSql(), eb('protocol_version', '=', 'ucp')]))
      .limit(MERCHANT_CANDIDATES)
      .execute()
  ).filter(answersQueries);
  const ids = merchants.map((m) => m.merchant_id);
  await recordStep(
    db,
    {
      ...s,
      agentId: run.entry_agent_id,
      kind: 'resolve_intent',
      status: 'succeeded',
      inputSummary: `raw_query "${intent.raw_query}"`,
      outputSummary: `intent ${intent.intent_id} with tags [${intent.intent_tags.join(', ')}]${intent.region ? `, region ${intent.region}` : ''}; ${ids.length} merchant agent(s) subscribe: ${ids.join(', ') || 'none'}`,
      consumed: consumedOf(1),
      startedAt,
    },
    { stage: 'querying_merchants', links: { intent_id: intent.intent_id } },
  );
  return { intent, merchants };
}

export const resolvedOf = ({ intent, merchants }: { intent: IntentRow; merchants: MerchantRow[] }): ResolvedIntent => ({
  intentId: intent.intent_id,
  tags: intent.intent_tags,
  merchants: merchants.map((m) => m.merchant_id),
});

/** Step `resolve_intent` alone (runs started before the runtime-fewer-activations patch). */
export async function resolveRuntimeIntent(deps: RuntimeDeps, s: StepRef): Promise<ResolvedIntent> {
  return resolvedOf(await resolveIntent(deps, s));
}

/** Step `catalog_query`: when no merchant proposed, the gateway catalog offers its best match at catalog price. */
export async function queryCatalog(deps: RuntimeDeps, s: StepRef & { intentId: string }): Promise<QueryResult> {
  const { db, snapshots } = deps;
  const startedAt = new Date();
  const id = stepId(s);
  const [already, recorded] = await Promise.all([proposalsOfStep(db, s.intentId, id), recordedStep(db, s)]);
  if (already.length && recorded) return { status: 'succeeded', proposalIds: already.map((p) => p.proposal_id), dropped: 0 };
  const intent = await getIntent(db, s.intentId, SYSTEM);
  const snapshot = await snapshots.get(db);
  const si = understandShoppingIntent(intent.raw_query, {
    region: intent.region,
    categories: snapshot.categories,
    priceQuartiles: snapshot.priceQuartiles,
  });
  const found = await retrieve(db, si, 1, snapshot);
  const hit = found.hits[0];
  // An earlier attempt stored the offer but died before recording the step: record it now.
  const stored = already.length
    ? already
    : hit
      ? [
          await submitProposal(
            db,
            {
              merchant_agent_id: hit.product.merchant_id ?? CATALOG_MERCHANT_ID,
              intent_id: intent.intent_id,
              product_id: hit.product.product_id,
              offer_title: hit.product.title,
              price: fromMinorUnits(hit.product.price_cents, hit.product.currency),
              currency: hit.product.currency,
              proposal_state: 'quoted',
              provenance: 'catalog',
              service_terms: { price_source: 'catalog' },
              proposal_score_inputs: { retrieval: hit.source },
              metadata: { runtime_id: s.runtimeId, runtime_step: id },
            },
            SYSTEM,
          ),
        ]
      : [];
  await recordStep(db, {
    ...s,
    agentId: CATALOG_MERCHANT_ID,
    kind: 'catalog_query',
    status: stored.length ? 'succeeded' : 'failed',
    inputSummary: `no merchant proposal for intent ${intent.intent_id}: ask the gateway catalog`,
    outputSummary: stored.length
      ? `catalog offer ${stored[0]!.proposal_id}: product ${stored[0]!.product_id} "${stored[0]!.offer_title}" at ${fromMinorUnits(stored[0]!.price_cents, stored[0]!.currency)} ${stored[0]!.currency}${hit ? ` (tier ${hit.source})` : ''}`
      : 'the catalog has nothing for this intent',
    consumed: consumedOf(1, 0, stored.length),
    startedAt,
    error: stored.length ? null : 'no_catalog_match',
  });
  return { status: stored.length ? 'succeeded' : 'failed', proposalIds: stored.map((p) => p.proposal_id), dropped: 0 };
}

/** Whether the run exists, and the session its rank step created (the one the run links, once it links one), in one statement. */
async function runAndEarlierSession(db: Db, runtimeId: string, intentId: string) {
  const row = await db
    .selectFrom('commerce_runtimes as r')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('match_sessions as m')
          .selectAll('m')
          .where('m.intent_id', '=', intentId)
          .where((w) => w.or([w('r.match_session_id', 'is', null), w('m.match_session_id', '=', w.ref('r.match_session_id'))]))
          .orderBy('m.created_at')
          .limit(1)
          .as('m'),
      (join) => join.onTrue(),
    )
    .select('r.runtime_id')
    .selectAll('m')
    .where('r.runtime_id', '=', runtimeId)
    .executeTakeFirst();
  if (!row) return { run: false, earlier: undefined };
  const { runtime_id: _run, ...session } = row;
  return { run: true, earlier: session.match_session_id ? (session as MatchSessionRow) : undefined };
}

/**
 * Step `rank`: a match session over the proposals the loop collected; the chosen proposal is the
 * best ranked one whose trust risk is not high (the best one when all are high risk).
 */
export async function rankRuntimeProposals(
  deps: RuntimeDeps,
  s: StepRef & { intentId: string; proposalIds: string[] },
): Promise<RankResult> {
  const { db, config } = deps;
  const startedAt = new Date();
  // The run's intent is its own: a session on it is one an earlier attempt of this step created (the
  // one the run links, once it links one). One statement reads the run's link and the session.
  const { run, earlier } = await runAndEarlierSession(db, s.runtimeId, s.intentId);
  if (!run) throw runtimeNotFound(s.runtimeId);
  let rows: Array<Pick<ProposalRow, 'proposal_id' | 'trust_score'>> | undefined;
  const session = earlier
    ? earlier
    : await createMatchSession(
        db,
        { intent_id: s.intentId, proposal_ids: s.proposalIds },
        {
          ttlSeconds: config.MATCH_SESSION_TTL_S,
          caller: SYSTEM,
          publicBaseUrl: config.publicBaseUrl,
          cardFacts: deps.cardFacts,
          // The candidates carry their trust scores: no second read of them.
          onCandidates: (c) => (rows = c),
        },
      );
  const ranked = session.ranked_proposals as unknown as RankedProposal[];
  rows ??= s.proposalIds.length
    ? await db.selectFrom('proposals').select(['proposal_id', 'trust_score']).where('proposal_id', 'in', s.proposalIds).execute()
    : [];
  const risk = new Map(rows.map((r) => [r.proposal_id, trustOf(r).risk]));
  const chosen = ranked.find((r) => risk.get(r.proposal_id) !== 'high') ?? ranked[0] ?? null;
  const skipped = chosen ? ranked.slice(0, ranked.indexOf(chosen)).map((r) => `${r.proposal_id} (rank ${r.rank}, high trust risk)`) : [];
  await recordStep(
    db,
    {
      ...s,
      agentId: MATCHER_AGENT_ID,
      kind: 'rank',
      status: chosen ? 'succeeded' : 'failed',
      inputSummary: `${s.proposalIds.length} proposal(s): ${s.proposalIds.join(', ')}`,
      outputSummary: chosen
        ? `match session ${session.match_session_id} ranked ${ranked.length}; chosen ${chosen.proposal_id} (${chosen.merchant_agent_id}, ${chosen.price} ${chosen.currency}, score ${chosen.score})${skipped.length ? `; passed over ${skipped.join(', ')}` : ''}`
        : `match session ${session.match_session_id} ranked nothing`,
      consumed: consumedOf(1),
      startedAt,
      error: chosen ? null : 'no_ranked_proposals',
    },
    { stage: 'ranking', links: { match_session_id: session.match_session_id, ...(chosen ? { proposal_id: chosen.proposal_id } : {}) } },
  );
  return {
    matchSessionId: session.match_session_id,
    chosenProposalId: chosen?.proposal_id ?? null,
    chosen: chosen
      ? { product: chosen.offer_title, merchant_id: chosen.merchant_agent_id, price: chosen.price, currency: chosen.currency }
      : null,
  };
}

/** Step `mint_token`: accept the chosen proposal (a signed match token); the proposal shell's metadata is attached to it. */
export async function mintRuntimeToken(
  deps: RuntimeDeps,
  s: StepRef & {
    matchSessionId: string;
    proposalId: string;
    /** The run ends with this step (it awaits the user's confirmation): written with the step, no finishRuntime after it. */
    finish?: { stage: string; auditStatus: string };
  },
): Promise<{ matchTokenId: string }> {
  const { db, config, signingKeys } = deps;
  const startedAt = new Date();
  // The run's API key and its proposal shell (request.proposal) onto the proposal, in one statement.
  const run = await db
    .with('shelled', (q) =>
      q
        .updateTable('proposals')
        .set({
          metadata: sql`metadata || jsonb_build_object('runtime_id', ${s.runtimeId}::text) || coalesce((
            select jsonb_build_object('runtime_shell', r.request->'proposal') from commerce_runtimes r
            where r.runtime_id = ${s.runtimeId} and jsonb_typeof(r.request->'proposal') not in ('null', 'boolean', 'number', 'string')
          ), '{}'::jsonb)`,
          updated_at: new Date(),
        })
        .where('proposal_id', '=', s.proposalId)
        .where(({ exists, selectFrom }) =>
          exists(selectFrom('commerce_runtimes').select('runtime_id').where('runtime_id', '=', s.runtimeId)),
        )
        .returning('proposal_id'),
    )
    .selectFrom('commerce_runtimes')
    .select('key_id')
    .where('runtime_id', '=', s.runtimeId)
    .executeTakeFirst();
  if (!run) throw runtimeNotFound(s.runtimeId);
  const k = await signingKeys();
  const token = await acceptMatch(
    { db, signingKey: k.matchToken, issuer: config.publicBaseUrl, ttlSeconds: config.MATCH_TOKEN_TTL_S },
    s.matchSessionId,
    { proposal_id: s.proposalId },
    { requestId: s.runtimeId, keyId: run.key_id ?? undefined },
    SYSTEM,
  );
  await recordStep(
    db,
    {
      ...s,
      agentId: MATCHER_AGENT_ID,
      kind: 'mint_token',
      status: 'succeeded',
      inputSummary: `accept ${s.proposalId} in match session ${s.matchSessionId}`,
      outputSummary: `match token ${token.match_token_id} (${token.acceptance_state}) for ${fromMinorUnits(token.amount_cents, token.currency)} ${token.currency}, expires ${token.expires_at.toISOString()}`,
      consumed: consumedOf(1),
      startedAt,
    },
    { stage: 'minting_token', links: { match_token_id: token.match_token_id }, finish: s.finish },
  );
  return { matchTokenId: token.match_token_id };
}

/**
 * Step `rank` at `index` and, when it chose a proposal and `mint` is given (the iteration budget has
 * room for one more step), step `mint_token` at `index + 1`: one local activity of the run instead
 * of two. `matchTokenId` is null when nothing was minted.
 */
export async function rankAndMintRuntimeToken(
  deps: RuntimeDeps,
  s: StepRef & { intentId: string; proposalIds: string[]; mint: null | Pick<Parameters<typeof mintRuntimeToken>[1], 'finish'> },
): Promise<RankResult & { matchTokenId: string | null }> {
  const ranked = await rankRuntimeProposals(deps, s);
  if (!ranked.chosenProposalId || !s.mint) return { ...ranked, matchTokenId: null };
  const minted = await mintRuntimeToken(deps, {
    runtimeId: s.runtimeId,
    index: s.index + 1,
    matchSessionId: ranked.matchSessionId,
    proposalId: ranked.chosenProposalId,
    ...s.mint,
  });
  return { ...ranked, ...minted };
}

/**
 * Step `authorize_payment` (only when the budget does not require the user's confirmation), and only
 * for a seller whose agent takes the order: otherwise the step is `skipped` and null comes back.
 */
export async function authorizeRuntimePayment(
  deps: RuntimeDeps,
  s: StepRef & { matchTokenId: string },
): Promise<{ authorizationId: string | null }> {
  const { db } = deps;
  const startedAt = new Date();
  const run = await getRuntimeRow(db, s.runtimeId);
  if ((await paymentModeOfToken(db, s.matchTokenId)) !== 'agent_handoff') {
    await recordStep(db, {
      ...s,
      agentId: run.entry_agent_id,
      kind: 'authorize_payment',
      status: 'skipped',
      inputSummary: `match token ${s.matchTokenId}; commerce_budget.require_user_confirmation_before_payment is false`,
      outputSummary:
        'no payment authorized: the seller has no agent that takes orders (checkout_mode merchant_redirect); plan a checkout for its continue_url',
      consumed: consumedOf(1),
      startedAt,
    });
    return { authorizationId: null };
  }
  const { authorization } = await authorizePayment(db, s.matchTokenId, {}, SYSTEM, { keyId: run.key_id ?? undefined });
  await recordStep(db, {
    ...s,
    agentId: run.entry_agent_id,
    kind: 'authorize_payment',
    status: 'succeeded',
    inputSummary: `match token ${s.matchTokenId}; commerce_budget.require_user_confirmation_before_payment is false`,
    outputSummary: `payment authorization ${authorization.authorization_id} for ${fromMinorUnits(authorization.amount_cents, authorization.currency)} ${authorization.currency}`,
    consumed: consumedOf(1),
    startedAt,
  });
  return { authorizationId: authorization.authorization_id };
}

/** Ends the run: its stage, the audit status and (when no token was minted) the best proposal so far. */
export async function finishRuntimeRun(
  deps: RuntimeDeps,
  f: { runtimeId: string; stage: string; auditStatus: string; bestProposalIds?: string[] },
): Promise<void> {
  const { db } = deps;
  let proposalId: string | null = null;
  if (f.bestProposalIds?.length) {
    const rows = await db
      .selectFrom('proposals')
      .select(['proposal_id', 'trust_score', 'price_cents'])
      .where('proposal_id', 'in', f.bestProposalIds)
      .execute();
    rows.sort((a, b) => (trustOf(b).score ?? 0) - (trustOf(a).score ?? 0) || a.price_cents - b.price_cents);
    proposalId = rows[0]?.proposal_id ?? null;
  }
  await finishRuntime(db, { runtimeId: f.runtimeId, stage: f.stage, auditStatus: f.auditStatus, proposalId });
}

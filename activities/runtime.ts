import { ApplicationFailure } from '@temporalio/activity';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import type { ActivityDeps } from './index';
import type { Db } from '../src/db/connect';
import type { BudgetConsumed } from '../src/db/schema-runtime';
import { CATALOG_MERCHANT_ID } from '../src/db/migrations/0008_recommend';
import { AppError } from '../src/errors';
import { loadSigningKeys, type SigningKeys } from '../src/crypto/signing-keys';
import { intentCategoryTags } from '../src/dispatch/category-terms';
import { createIntent, getIntent, intentView } from '../src/matching/intents';
import { submitProposal, type ProposalRow } from '../src/matching/proposals';
import { createMatchSession } from '../src/matching/match-sessions';
import { acceptMatch } from '../src/matching/match-tokens';
import { SYSTEM } from '../src/tenancy';
import { authorizePayment } from '../src/matching/payments';
import type { RankedProposal } from '../src/matching/ranking';
import { CatalogSnapshotCache } from '../src/recommend/catalog-snapshot';
import { retrieve } from '../src/recommend/retrieval';
import { understandShoppingIntent } from '../src/recommend/understand';
import { endpointPolicy } from '../src/registry/endpoint-safety';
import { boundedRequest, OutboundError } from '../src/registry/outbound-http';
import { openWebhookSecret } from '../src/registry/secrets';
import { IntentCreateBody } from '../src/schemas/intents';
import { MerchantQueryAnswer } from '../src/schemas/runtime';
import { finishRuntime, getRuntimeRow, recordStep, setStage } from '../src/runtime/store';
import { fromMinorUnits } from '../src/money';
import { seededId } from '../src/idempotency/store';
import { Client, Connection } from '@temporalio/client';
import { reconcileRuntimes } from '../src/runtime/reconcile';
import { paymentModeOfToken, voidStrandedAuthorizations } from '../src/runtime/payment';

/**
 * Activities of the commerce runtime (docs/RUNTIME.md): every I/O of the loop. Each one that is an
 * AgentStep records its step (keyed by runtime and index, so a retry rewrites it) and is idempotent:
 * a retry finds what the first try stored (the intent on the run, proposals tagged with the step,
 * the session on the run, the live token of the proposal) instead of doing it again.
 * Business failures are non-retryable ApplicationFailures typed with the error code.
 */

/** Most merchants one resolve step lists (the query budget cuts it further). */
const MERCHANT_CANDIDATES = 50;
const ANSWER_MAX_BYTES = 256 * 1024;
/** The agent id of the gateway's own steps. */
export const MATCHER_AGENT_ID = 'gateway-matcher';

const consumedOf = (iterations: number, merchant_queries = 0, proposal_versions = 0): BudgetConsumed => ({ iterations, merchant_queries, proposal_versions });

async function businessErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) throw ApplicationFailure.nonRetryable(err.message, err.code, { status: err.status });
    throw err;
  }
}

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
  status: 'succeeded' | 'failed' | 'timeout';
  proposalIds: string[];
  /** Proposals offered beyond what the proposal-version budget let the loop keep. */
  dropped: number;
}

export interface RankResult {
  matchSessionId: string;
  chosenProposalId: string | null;
}

const trustOf = (p: Pick<ProposalRow, 'trust_score'>) => p.trust_score as { score?: number; risk?: string; basis?: { price_sanity?: { reason?: string } } };

/** Proposals a step already stored (a retried activity returns them instead of asking again). */
async function proposalsOfStep(db: Db, intentId: string, stepId: string): Promise<ProposalRow[]> {
  return db
    .selectFrom('proposals')
    .selectAll()
    .where('intent_id', '=', intentId)
    .where(sql<boolean>`metadata->>'runtime_step' = ${stepId}`)
    .orderBy('created_at')
    .execute();
}

/** The step row of (runtime, index) when an earlier attempt recorded it. */
async function recordedStep(db: Db, s: StepRef) {
  return db
    .selectFrom('commerce_runtime_steps')
    .select(['status', 'output_summary'])
    .where('runtime_id', '=', s.runtimeId)
    .where('index', '=', s.index)
    .executeTakeFirst();
}

/** `N dropped by max_proposal_versions` as the merchant-query step recorded it. */
const droppedOf = (summary: string) => Number(/(\d+) dropped by max_proposal_versions/.exec(summary)?.[1] ?? 0);

/** The intent a run creates: named after the run, so a retried resolve step finds it instead of creating another. */
export const runtimeIntentId = (runtimeId: string) => seededId(runtimeId, 'int');

export function createRuntimeActivities({ db, config }: ActivityDeps) {
  let keys: Promise<SigningKeys> | undefined;
  const signingKeys = () => (keys ??= loadSigningKeys(config));
  const snapshots = new CatalogSnapshotCache(config.CARD_CACHE_TTL_S);
  const stepId = (s: StepRef) => `${s.runtimeId}-s${s.index}`;

  return {
    async runtimeStage(runtimeId: string, stage: string): Promise<void> {
      await setStage(db, runtimeId, stage);
    },

    /** Step `resolve_intent`: store the intent (once per run) and list the merchant agents it matches. */
    async resolveRuntimeIntent(s: StepRef): Promise<ResolvedIntent> {
      return businessErrors(async () => {
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
        const categories = intentCategoryTags(intent.intent_tags);
        const merchants = await db
          .selectFrom('merchants')
          .select('merchant_id')
          .where('status', '=', 'active')
          .where('merchant_id', '!=', CATALOG_MERCHANT_ID)
          .where(sql<boolean>`subscription_tags && ${sql.val(intent.intent_tags)}::text[]`)
          .where(sql<boolean>`(cardinality(regions) = 0 or ${intent.region}::text is null or ${intent.region}::text = any(regions))`)
          .where(sql<boolean>`(cardinality(category_tags) = 0 or ${categories.length} = 0 or lower(category_tags::text)::text[] && ${sql.val(categories)}::text[])`)
          .orderBy('merchant_id')
          .limit(MERCHANT_CANDIDATES)
          .execute();
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
        return { intentId: intent.intent_id, tags: intent.intent_tags, merchants: ids };
      });
    },

    /**
     * Step `merchant_query`: POST the intent to the merchant's agent_endpoint with a deadline; its
     * JSON answer `{proposals: [...]}` becomes proposals (each one a proposal version), scored by
     * trust against the catalog. A slow, failing or malformed merchant is a recorded step, not an error.
     */
    async queryMerchantAgent(s: StepRef & { intentId: string; merchantId: string; maxProposals: number; deadlineMs: number }): Promise<QueryResult> {
      const startedAt = new Date();
      const id = stepId(s);
      const [m, intent, recorded, already] = await Promise.all([
        db.selectFrom('merchants').select(['merchant_id', 'agent_endpoint', 'webhook_secret_sealed']).where('merchant_id', '=', s.merchantId).executeTakeFirstOrThrow(),
        getIntent(db, s.intentId, SYSTEM),
        recordedStep(db, s),
        proposalsOfStep(db, s.intentId, id),
      ]);
      // The step and its effects are one unit keyed by (runtime, index): an attempt that recorded the
      // step answered; one that died after storing proposals but before recording the step has the
      // step recorded now from what it stored. Either way the merchant is not asked again.
      if (recorded) {
        return { status: recorded.status as QueryResult['status'], proposalIds: already.map((p) => p.proposal_id), dropped: droppedOf(recorded.output_summary) };
      }
      const respondBy = new Date(startedAt.getTime() + s.deadlineMs);
      const payload = JSON.stringify({
        type: 'runtime.query',
        timestamp: startedAt.toISOString(),
        data: { runtime_id: s.runtimeId, step_id: id, merchant_id: m.merchant_id, intent: intentView(intent), respond_by: respondBy.toISOString(), max_proposals: s.maxProposals },
      });
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-runtime-id': s.runtimeId };
      try {
        const secret = openWebhookSecret(config.KEY_ENCRYPTION_KEY, m.merchant_id, m.webhook_secret_sealed);
        Object.assign(headers, { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(startedAt.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign(id, startedAt, payload) });
      } catch {
        /* unsigned: the secret is sealed with a key this worker lacks */
      }
      const record = (status: QueryResult['status'], output: string, stored: ProposalRow[], error: string | null) =>
        recordStep(db, {
          ...s,
          agentId: m.merchant_id,
          kind: 'merchant_query',
          status,
          inputSummary: `intent ${s.intentId} → POST ${m.agent_endpoint} (deadline ${s.deadlineMs} ms, up to ${s.maxProposals} proposal(s))`,
          outputSummary: output,
          consumed: consumedOf(1, 1, stored.length),
          startedAt,
          error,
        });
      if (already.length) {
        await record('succeeded', `${already.length} proposal(s) kept (stored by an earlier attempt of this step): ${already.map((p) => p.proposal_id).join(', ')}`, already, null);
        return { status: 'succeeded', proposalIds: already.map((p) => p.proposal_id), dropped: 0 };
      }

      let answer;
      try {
        const res = await boundedRequest(m.agent_endpoint, {
          method: 'POST',
          body: payload,
          headers,
          timeoutMs: s.deadlineMs,
          maxBytes: ANSWER_MAX_BYTES,
          maxRedirects: 0,
          policy: endpointPolicy(config.ALLOW_PRIVATE_ENDPOINTS),
        });
        if (res.status < 200 || res.status >= 300) {
          await record('failed', `merchant answered HTTP ${res.status}`, [], `http_${res.status}`);
          return { status: 'failed', proposalIds: [], dropped: 0 };
        }
        answer = MerchantQueryAnswer.safeParse(JSON.parse(res.body.toString('utf8') || '{}'));
      } catch (err) {
        if (err instanceof OutboundError) {
          const status = err.reason === 'timeout' ? 'timeout' : 'failed';
          await record(status, `no answer: ${err.reason}`, [], `${err.reason}: ${err.message}`);
          return { status, proposalIds: [], dropped: 0 };
        }
        if (err instanceof SyntaxError) {
          await record('failed', 'the answer is not JSON', [], 'invalid_answer: not JSON');
          return { status: 'failed', proposalIds: [], dropped: 0 };
        }
        throw err;
      }
      if (!answer.success) {
        const issue = answer.error.issues[0];
        await record('failed', 'the answer does not follow the query contract', [], `invalid_answer: ${issue?.path.join('.') || 'body'} ${issue?.message ?? ''}`.trim());
        return { status: 'failed', proposalIds: [], dropped: 0 };
      }
      const offered = answer.data.proposals;
      const kept = offered.slice(0, s.maxProposals);
      const stored: ProposalRow[] = [];
      const rejected: string[] = [];
      for (const p of kept) {
        try {
          stored.push(
            await submitProposal(db, {
              ...p,
              merchant_agent_id: m.merchant_id,
              intent_id: s.intentId,
              provenance: p.provenance ?? 'merchant_agent_runtime',
              metadata: { ...p.metadata, runtime_id: s.runtimeId, runtime_step: id },
            }, SYSTEM),
          );
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          rejected.push(`product ${p.product_id}: ${err.code}`);
        }
      }
      const described = stored.map((p) => {
        const t = trustOf(p);
        return `${p.proposal_id} (${fromMinorUnits(p.price_cents, p.currency)} ${p.currency}, trust ${t.score} ${t.risk} risk: ${t.basis?.price_sanity?.reason ?? 'n/a'})`;
      });
      const dropped = offered.length - kept.length;
      await record(
        'succeeded',
        `${offered.length} proposal(s) offered, ${stored.length} kept: ${described.join('; ') || 'none'}${rejected.length ? `; rejected ${rejected.join(', ')}` : ''}${dropped ? `; ${dropped} dropped by max_proposal_versions` : ''}`,
        stored,
        null,
      );
      return { status: 'succeeded', proposalIds: stored.map((p) => p.proposal_id), dropped };
    },

    /** Step `catalog_query`: when no merchant proposed, the gateway catalog offers its best match at catalog price. */
    async queryCatalog(s: StepRef & { intentId: string }): Promise<QueryResult> {
      return businessErrors(async () => {
        const startedAt = new Date();
        const id = stepId(s);
        const [already, recorded] = await Promise.all([proposalsOfStep(db, s.intentId, id), recordedStep(db, s)]);
        if (already.length && recorded) return { status: 'succeeded', proposalIds: already.map((p) => p.proposal_id), dropped: 0 };
        const intent = await getIntent(db, s.intentId, SYSTEM);
        const snapshot = await snapshots.get(db);
        const si = understandShoppingIntent(intent.raw_query, { region: intent.region, categories: snapshot.categories, priceQuartiles: snapshot.priceQuartiles });
        const found = await retrieve(db, si, 1, snapshot);
        const hit = found.hits[0];
        // An earlier attempt stored the offer but died before recording the step: record it now.
        const stored = already.length
          ? already
          : hit
          ? [
              await submitProposal(db, {
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
              }, SYSTEM),
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
      });
    },

    /**
     * Step `rank`: a match session over the proposals the loop collected; the chosen proposal is the
     * best ranked one whose trust risk is not high (the best one when all are high risk).
     */
    async rankRuntimeProposals(s: StepRef & { intentId: string; proposalIds: string[] }): Promise<RankResult> {
      return businessErrors(async () => {
        const startedAt = new Date();
        const run = await getRuntimeRow(db, s.runtimeId);
        // The run's intent is its own: a session on it is one an earlier attempt of this step created.
        const earlier = await db
          .selectFrom('match_sessions')
          .selectAll()
          .where('intent_id', '=', s.intentId)
          .$if(Boolean(run.match_session_id), (q) => q.where('match_session_id', '=', run.match_session_id!))
          .orderBy('created_at')
          .limit(1)
          .executeTakeFirst();
        const session = earlier
          ? earlier
          : await createMatchSession(
              db,
              { intent_id: s.intentId, proposal_ids: s.proposalIds },
              { ttlSeconds: config.MATCH_SESSION_TTL_S, caller: SYSTEM, publicBaseUrl: config.publicBaseUrl },
            );
        const ranked = session.ranked_proposals as unknown as RankedProposal[];
        const rows = s.proposalIds.length ? await db.selectFrom('proposals').select(['proposal_id', 'trust_score']).where('proposal_id', 'in', s.proposalIds).execute() : [];
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
        return { matchSessionId: session.match_session_id, chosenProposalId: chosen?.proposal_id ?? null };
      });
    },

    /** Step `mint_token`: accept the chosen proposal (a signed match token); the proposal shell's metadata is attached to it. */
    async mintRuntimeToken(s: StepRef & { matchSessionId: string; proposalId: string }): Promise<{ matchTokenId: string }> {
      return businessErrors(async () => {
        const startedAt = new Date();
        const run = await getRuntimeRow(db, s.runtimeId);
        const shell = (run.request as { proposal?: { metadata?: Record<string, unknown> } }).proposal;
        await db
          .updateTable('proposals')
          .set({ metadata: sql`metadata || ${JSON.stringify({ runtime_id: s.runtimeId, ...(shell ? { runtime_shell: shell } : {}) })}::jsonb`, updated_at: new Date() })
          .where('proposal_id', '=', s.proposalId)
          .execute();
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
          { stage: 'minting_token', links: { match_token_id: token.match_token_id } },
        );
        return { matchTokenId: token.match_token_id };
      });
    },

    /**
     * Step `authorize_payment` (only when the budget does not require the user's confirmation), and only
     * for a seller whose agent takes the order: otherwise the step is `skipped` and null comes back.
     */
    async authorizeRuntimePayment(s: StepRef & { matchTokenId: string }): Promise<{ authorizationId: string | null }> {
      return businessErrors(async () => {
        const startedAt = new Date();
        const run = await getRuntimeRow(db, s.runtimeId);
        if ((await paymentModeOfToken(db, s.matchTokenId)) !== 'agent_handoff') {
          await recordStep(db, {
            ...s,
            agentId: run.entry_agent_id,
            kind: 'authorize_payment',
            status: 'skipped',
            inputSummary: `match token ${s.matchTokenId}; commerce_budget.require_user_confirmation_before_payment is false`,
            outputSummary: 'no payment authorized: the seller has no agent that takes orders (checkout_mode merchant_redirect); plan a checkout for its continue_url',
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
      });
    },

    /** The runtime reconciler's pass (src/runtime/reconcile.ts). */
    async reconcileOpenRuntimes() {
      // It asks Temporal about other runs: a connection per pass (once a minute), closed after it,
      // so nothing outlives the worker's shutdown.
      const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS!, connectTimeout: 5000 });
      try {
        const closed = await reconcileRuntimes(db, new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }));
        // The same pass voids authorizations nothing took up (src/runtime/payment.ts).
        return { ...closed, voided: await voidStrandedAuthorizations(db) };
      } finally {
        await connection.close();
      }
    },

    /** Ends the run: its stage, the audit status and (when no token was minted) the best proposal so far. */
    async finishRuntime(f: { runtimeId: string; stage: string; auditStatus: string; bestProposalIds?: string[] }): Promise<void> {
      let proposalId: string | null = null;
      if (f.bestProposalIds?.length) {
        const rows = await db.selectFrom('proposals').select(['proposal_id', 'trust_score', 'price_cents']).where('proposal_id', 'in', f.bestProposalIds).execute();
        rows.sort((a, b) => (trustOf(b).score ?? 0) - (trustOf(a).score ?? 0) || a.price_cents - b.price_cents);
        proposalId = rows[0]?.proposal_id ?? null;
      }
      await finishRuntime(db, { runtimeId: f.runtimeId, stage: f.stage, auditStatus: f.auditStatus, proposalId });
    },
  };
}

export type RuntimeActivities = ReturnType<typeof createRuntimeActivities>;

import { sql, type Insertable } from 'kysely';
import type { z } from 'zod';
import { AppError } from '../errors';
import { newId } from '../ids';
import { describeProductRef, resolveProductRefs } from '../catalog/merchant-products';
import type { ProductRow } from '../db/schema-catalog';
import type { ProposalsTable } from '../db/schema-matching';
import { loadCreatorEvidence } from '../experience/facts';
import type { CreatorEvidenceT } from '../schemas/experience';
import { getIntent, intentView } from '../matching/intents';
import { checkProposal, newProposalRow, submittedTransitions } from '../matching/proposals';
import { recentHealthOf } from '../matching/trust-score';
import { fromMinorUnits } from '../money';
import { callMerchant, merchantSecretOrNull } from '../outbound/merchant';
import { ucpClientDeps } from '../protocols/adapters';
import { searchUcpCatalog, UcpCatalogUnsupported } from '../protocols/ucp/catalog';
import { UcpCallError } from '../protocols/ucp/client';
import { merchantProtocolOf } from '../registry/merchant-protocol';
import { MerchantQueryAnswer } from '../schemas/runtime';
import { SYSTEM } from '../tenancy';
import { recordStepsWithProposals, type StepRecord } from './store';
import {
  consumedOf,
  resolvedOf,
  resolveIntent,
  stepId,
  trustOf,
  type QueryResult,
  type ResolvedIntent,
  type RuntimeDeps,
  type StepRef,
} from './steps';
import type { IntentRow } from '../matching/intents';
import type { MerchantRow } from '../db/schema';

const ANSWER_MAX_BYTES = 256 * 1024;

/** `N dropped by max_proposal_versions` as the merchant-query step recorded it. */
const droppedOf = (summary: string) => Number(/(\d+) dropped by max_proposal_versions/.exec(summary)?.[1] ?? 0);

type MerchantQuery = StepRef & { intentId: string; merchantId: string; maxProposals: number; deadlineMs: number };

/**
 * What one merchant was asked and answered, before its step is recorded. `skipped`: the merchant says
 * it does not answer runtime queries (not a failure of the merchant: nothing was asked of it that it offers).
 */
type Asked =
  | { kind: 'answered'; offered: MerchantOffer[] }
  | { kind: 'no_answer'; status: 'failed' | 'timeout'; output: string; error: string }
  | { kind: 'no_answer'; status: 'skipped'; output: string; error: null };
type MerchantOffer = z.infer<typeof MerchantQueryAnswer>['proposals'][number];

/** The intent and merchant rows a caller has just read (the resolve step of the same activity). */
type KnownRows = { intent: IntentRow; merchants: MerchantRow[] };

/**
 * Merchant-query steps in three parts, so that several merchants can be asked at once and their
 * steps still recorded in merchant order (`queryMerchantAgents`): `loadRound` reads what the steps
 * need and what an earlier attempt recorded, `ask` POSTs to one merchant, `recordRound` stores the
 * proposals that fit the proposal versions left and writes the steps. A round costs a fixed number of
 * statements however many merchants it asks (four reads to load, three to check the offers, a fourth
 * when one names its product by the merchant's own id, one write);
 * two reads fewer when the caller has the intent and the merchants' rows in hand (`KnownRows`).
 */
async function loadRound(deps: RuntimeDeps, round: MerchantQuery[], known?: KnownRows) {
  const { db } = deps;
  const first = round[0]!;
  const ids = round.map(stepId);
  const [merchants, intent, recorded, already] = await Promise.all([
    known?.merchants ??
      db
        .selectFrom('merchants')
        .selectAll()
        .where(
          'merchant_id',
          'in',
          round.map((s) => s.merchantId),
        )
        .execute(),
    // The merchants of one round share one read of their intent.
    known?.intent ?? getIntent(db, first.intentId, SYSTEM),
    db
      .selectFrom('commerce_runtime_steps')
      .select(['index', 'status', 'output_summary'])
      .where('runtime_id', '=', first.runtimeId)
      .where(
        'index',
        'in',
        round.map((s) => s.index),
      )
      .execute(),
    db
      .selectFrom('proposals')
      .selectAll()
      .where('intent_id', '=', first.intentId)
      .where(sql<string>`metadata->>'runtime_step'`, 'in', ids)
      .orderBy('created_at')
      .execute(),
  ]);
  const startedAt = new Date();
  return round.map((s, i) => {
    const m = merchants.find((r) => r.merchant_id === s.merchantId);
    if (!m) throw new Error(`merchant ${s.merchantId} of step ${ids[i]} is not registered`);
    return {
      s,
      id: ids[i]!,
      m,
      intent,
      recorded: recorded.find((r) => r.index === s.index),
      already: already.filter((p) => (p.metadata as { runtime_step?: string }).runtime_step === ids[i]),
      startedAt,
    };
  });
}
type LoadedStep = Awaited<ReturnType<typeof loadRound>>[number];

/**
 * The step and its effects are one unit keyed by (runtime, index): an attempt that recorded the
 * step answered; one that died after storing proposals but before recording the step has the step
 * recorded now from what it stored. Either way the merchant is not asked again.
 */
const answeredBefore = (l: LoadedStep) => Boolean(l.recorded || l.already.length);

/**
 * A UCP business that declares catalog search is asked through it (src/protocols/ucp/catalog.ts): the
 * intent's keywords as the query, its budget as the price cap; each item it returns is an offer naming
 * the product by the business's own item id, at the business's price.
 */
async function askUcpCatalog(deps: RuntimeDeps, l: LoadedStep): Promise<Asked> {
  const { config } = deps;
  const currency = l.intent.budget_currency ?? 'USD';
  try {
    const items = await searchUcpCatalog(
      await ucpClientDeps({
        allowPrivateEndpoints: config.ALLOW_PRIVATE_ENDPOINTS,
        timeoutMs: l.s.deadlineMs,
        publicBaseUrl: config.publicBaseUrl,
        ucpSigningKey: config.UCP_SIGNING_KEY,
      }),
      { merchant_id: l.m.merchant_id, endpoint: l.m.agent_endpoint, credential: null, profile: l.m.protocol_profile },
      {
        // The intent's keywords (what merchants subscribe by), not the sentence around them.
        query: l.intent.intent_tags.join(' ') || l.intent.raw_query,
        limit: l.s.maxProposals,
        currency,
        ...(l.intent.budget_max_cents !== null ? { max_price: l.intent.budget_max_cents } : {}),
      },
    );
    const offered = items
      .filter((i) => i.in_stock && i.price_minor > 0)
      .map((i) => ({
        variant_id: i.item_id,
        offer_title: i.title,
        price: fromMinorUnits(i.price_minor, i.currency),
        currency: i.currency,
        proposal_state: 'quoted' as const,
        inventory_status: 'in_stock' as const,
        metadata: { ucp_item_id: i.item_id, ...(i.url ? { url: i.url } : {}) },
      }));
    return { kind: 'answered', offered };
  } catch (err) {
    if (!(err instanceof UcpCallError || err instanceof UcpCatalogUnsupported)) throw err;
    return { kind: 'no_answer', status: 'failed', output: `UCP catalog search failed`, error: err.message };
  }
}

/** A merchant agent that says it does not answer runtime queries: its step is `skipped`, not failed. */
const doesNotAnswer = (how: string): Asked => ({
  kind: 'no_answer',
  status: 'skipped',
  output: `not answered: ${how}; the merchant agent does not answer runtime queries`,
  error: null,
});

/** POSTs the intent to the merchant's agent_endpoint with the step's deadline and reads its answer. */
async function ask(deps: RuntimeDeps, l: LoadedStep): Promise<Asked> {
  if (merchantProtocolOf(l.m) === 'ucp') return askUcpCatalog(deps, l);
  const { config } = deps;
  const { s, m, id } = l;
  const respondBy = new Date(l.startedAt.getTime() + s.deadlineMs);
  const payload = JSON.stringify({
    type: 'runtime.query',
    timestamp: l.startedAt.toISOString(),
    data: {
      runtime_id: s.runtimeId,
      step_id: id,
      merchant_id: m.merchant_id,
      intent: intentView(l.intent),
      respond_by: respondBy.toISOString(),
      max_proposals: s.maxProposals,
    },
  });
  const res = await callMerchant(
    { allowPrivateEndpoints: config.ALLOW_PRIVATE_ENDPOINTS },
    {
      endpoint: m.agent_endpoint,
      messageId: id,
      body: payload,
      // Unsigned when the secret is sealed with a key this worker lacks.
      secret: merchantSecretOrNull(config.KEY_ENCRYPTION_KEY, m.merchant_id, m.webhook_secret_sealed),
      headers: { 'x-runtime-id': s.runtimeId },
      timeoutMs: s.deadlineMs,
      maxBytes: ANSWER_MAX_BYTES,
    },
  );
  if (res.failure) {
    const status = res.failure.reason === 'timeout' ? 'timeout' : 'failed';
    return {
      kind: 'no_answer',
      status,
      output: `no answer: ${res.failure.reason}`,
      error: `${res.failure.reason}: ${res.failure.message}`,
    };
  }
  if (res.status === 501) return doesNotAnswer(`it answered HTTP 501 Not Implemented`);
  if (res.outcome !== 'accepted')
    return { kind: 'no_answer', status: 'failed', output: `merchant answered HTTP ${res.status}`, error: `http_${res.status}` };
  let body: unknown;
  try {
    body = JSON.parse(res.body.toString('utf8') || '{}');
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return { kind: 'no_answer', status: 'failed', output: 'the answer is not JSON', error: 'invalid_answer: not JSON' };
  }
  // A webhook receiver that takes Intent.Surge deliveries but not queries acknowledges the query and
  // answers nothing (the reference agent: 202 {"status":"ignored"}): no `proposals` member at all.
  if (typeof body === 'object' && body !== null && !Array.isArray(body) && !('proposals' in body))
    return doesNotAnswer(`it acknowledged the query (HTTP ${res.status}) without proposals`);
  const answer = MerchantQueryAnswer.safeParse(body);
  if (!answer.success) {
    const issue = answer.error.issues[0];
    return {
      kind: 'no_answer',
      status: 'failed',
      output: 'the answer does not follow the query contract',
      error: `invalid_answer: ${issue?.path.join('.') || 'body'} ${issue?.message ?? ''}`.trim(),
    };
  }
  return { kind: 'answered', offered: answer.data.proposals };
}

/**
 * Records the steps of a round in merchant order: each from an earlier attempt's record or stored
 * proposals, or from `asked[i]` (the merchant's answer), of which at most the proposal versions still
 * left are stored; the rest are `dropped`. No step after the one that had proposals dropped or used
 * up `keep`. The new steps, their proposals and the proposals' transitions are written in one
 * statement (recordStepsWithProposals). Returns the recorded steps' results in merchant order.
 */
async function recordRound(deps: RuntimeDeps, loaded: LoadedStep[], keep: number, asked: Array<Asked | undefined>): Promise<QueryResult[]> {
  const { db } = deps;
  // The offers that can be kept at most (each merchant's first `keep`), checked against the catalog at
  // once: each names its product by the gateway's id or by the merchant's own (within its own products).
  const offers = loaded.flatMap((l, i) => {
    const a = asked[i];
    return !l.recorded && !l.already.length && a?.kind === 'answered'
      ? a.offered.slice(0, keep).map((p) => ({ merchantId: l.m.merchant_id, ref: p }))
      : [];
  });
  // Creator evidence of the gateway ids is read beside the products; that of products named by the
  // merchant's own ids only once they are resolved (one more statement, only then).
  const named = offers.flatMap((o) => (o.ref.product_id !== undefined ? [o.ref.product_id] : []));
  const [resolved, health, evidence] = offers.length
    ? await Promise.all([
        resolveProductRefs(db, offers),
        recentHealthOf(
          db,
          loaded.map((l) => l.m.merchant_id),
        ),
        loadCreatorEvidence(db, named),
      ])
    : [[], new Map<string, { healthy: number; total: number }>(), new Map<number, CreatorEvidenceT[]>()];
  const products = new Map<MerchantOffer, ProductRow | undefined>(offers.map((o, i) => [o.ref, resolved[i]]));
  const more = resolved.flatMap((p) => (p && !evidence.has(p.product_id) && !named.includes(p.product_id) ? [p.product_id] : []));
  if (more.length) for (const [id, e] of await loadCreatorEvidence(db, more)) evidence.set(id, e);

  const out: QueryResult[] = [];
  const steps: StepRecord[] = [];
  const rows: Insertable<ProposalsTable>[] = [];
  const now = new Date();
  let left = keep;
  for (const [i, l] of loaded.entries()) {
    const { s, m, id, recorded, already } = l;
    const step = (status: QueryResult['status'], output: string, stored: number, error: string | null): StepRecord => ({
      ...s,
      agentId: m.merchant_id,
      kind: 'merchant_query',
      status,
      inputSummary: `intent ${s.intentId} → POST ${m.agent_endpoint} (deadline ${s.deadlineMs} ms, up to ${s.maxProposals} proposal(s))`,
      outputSummary: output,
      consumed: consumedOf(1, 1, stored),
      startedAt: l.startedAt,
      error,
    });
    let r: QueryResult;
    const a = asked[i];
    if (recorded) {
      r = {
        status: recorded.status as QueryResult['status'],
        proposalIds: already.map((p) => p.proposal_id),
        dropped: droppedOf(recorded.output_summary),
      };
    } else if (already.length) {
      const ids = already.map((p) => p.proposal_id);
      steps.push(
        step(
          'succeeded',
          `${already.length} proposal(s) kept (stored by an earlier attempt of this step): ${ids.join(', ')}`,
          already.length,
          null,
        ),
      );
      r = { status: 'succeeded', proposalIds: ids, dropped: 0 };
    } else if (!a) {
      throw new Error(`merchant query ${id} was never asked`);
    } else if (a.kind === 'no_answer') {
      steps.push(step(a.status, a.output, 0, a.error));
      r = { status: a.status, proposalIds: [], dropped: 0 };
    } else {
      const kept = a.offered.slice(0, left);
      const stored: Insertable<ProposalsTable>[] = [];
      const rejected: string[] = [];
      for (const p of kept) {
        const input = {
          ...p,
          merchant_agent_id: m.merchant_id,
          intent_id: s.intentId,
          provenance: p.provenance ?? 'merchant_agent_runtime',
          metadata: { ...p.metadata, runtime_id: s.runtimeId, runtime_step: id },
        };
        try {
          const product = products.get(p);
          checkProposal(input, m, product);
          const facts = {
            intent: l.intent,
            merchant: m,
            product,
            healthProbes: health.get(m.merchant_id) ?? { healthy: 0, total: 0 },
            evidence: evidence.get(product.product_id) ?? [],
          };
          stored.push(newProposalRow(input, facts, newId('prop'), now));
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          rejected.push(`${describeProductRef(p)}: ${err.code}`);
        }
      }
      const described = stored.map((p) => {
        const t = trustOf({ trust_score: JSON.parse(p.trust_score as string) });
        return `${p.proposal_id} (${fromMinorUnits(p.price_cents, p.currency)} ${p.currency}, trust ${t.score} ${t.risk} risk: ${t.basis?.price_sanity?.reason ?? 'n/a'})`;
      });
      const dropped = a.offered.length - kept.length;
      steps.push(
        step(
          'succeeded',
          `${a.offered.length} proposal(s) offered, ${stored.length} kept: ${described.join('; ') || 'none'}${rejected.length ? `; rejected ${rejected.join(', ')}` : ''}${dropped ? `; ${dropped} dropped by max_proposal_versions` : ''}`,
          stored.length,
          null,
        ),
      );
      rows.push(...stored);
      r = { status: 'succeeded', proposalIds: stored.map((p) => p.proposal_id), dropped };
    }
    out.push(r);
    left -= r.proposalIds.length;
    if (r.dropped > 0 || left <= 0) break;
  }
  if (steps.length) await recordStepsWithProposals(db, steps, rows, submittedTransitions(rows, now));
  return out;
}

export type MerchantQueries = StepRef & { intentId: string; merchantIds: string[]; maxProposals: number; deadlineMs: number };

/**
 * The merchant-query steps of a run, `merchantIds[i]` as step `index + i`, with the merchants'
 * latencies overlapping instead of adding up. The workflow passes the merchants that fit the
 * merchant-query and iteration budgets; `maxProposals` is the proposal-version budget left. The
 * steps are the ones the merchants asked one by one would record: in merchant order, each keeping
 * what still fits, and none after the one that used up the budget or had proposals dropped. To ask
 * no merchant those steps would not have asked, the merchants go in rounds of as many as there
 * are proposal versions left (a merchant that proposes anything uses at least one); only a merchant
 * that offers several proposals can leave answers of its round unused, which are not recorded.
 * Returns the recorded steps' results in merchant order.
 */
export async function queryMerchantAgents(deps: RuntimeDeps, q: MerchantQueries, known?: KnownRows): Promise<QueryResult[]> {
  const out: QueryResult[] = [];
  let left = q.maxProposals;
  let next = 0;
  while (next < q.merchantIds.length && left > 0) {
    const round = q.merchantIds.slice(next, next + left).map((merchantId, i) => ({
      runtimeId: q.runtimeId,
      index: q.index + next + i,
      intentId: q.intentId,
      merchantId,
      maxProposals: left,
      deadlineMs: q.deadlineMs,
    }));
    const loaded = await loadRound(deps, round, known);
    const asked = await Promise.all(loaded.map((l) => (answeredBefore(l) ? undefined : ask(deps, l))));
    const results = await recordRound(deps, loaded, left, asked);
    out.push(...results);
    for (const r of results) left -= r.proposalIds.length;
    if (results.some((r) => r.dropped > 0)) return out;
    next += round.length;
  }
  return out;
}

/**
 * Step `resolve_intent` at `index`, then the merchant-query steps from `index + 1` on: the first
 * `maxMerchants` of the intent's merchants (those the run's budgets let it reach) are asked at once
 * (queryMerchantAgents). One local activity of the run instead of two.
 */
export async function resolveAndQueryMerchants(
  deps: RuntimeDeps,
  s: StepRef & { maxMerchants: number; maxProposals: number; deadlineMs: number },
): Promise<ResolvedIntent & { answers: QueryResult[] }> {
  const resolved = await resolveIntent(deps, s);
  const asked = resolved.merchants.slice(0, Math.max(0, s.maxMerchants));
  const answers = asked.length
    ? await queryMerchantAgents(
        deps,
        {
          runtimeId: s.runtimeId,
          index: s.index + 1,
          intentId: resolved.intent.intent_id,
          merchantIds: asked.map((m) => m.merchant_id),
          maxProposals: s.maxProposals,
          deadlineMs: s.deadlineMs,
        },
        { intent: resolved.intent, merchants: asked },
      )
    : [];
  return { ...resolvedOf(resolved), answers };
}

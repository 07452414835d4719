import type { z } from 'zod';
import { AppError } from '../errors';
import { getIntent, intentView, type IntentRow } from '../matching/intents';
import { submitProposal, type ProposalRow } from '../matching/proposals';
import { fromMinorUnits } from '../money';
import { callMerchant, merchantSecretOrNull } from '../outbound/merchant';
import { MerchantQueryAnswer } from '../schemas/runtime';
import { SYSTEM } from '../tenancy';
import { recordStep } from './store';
import { consumedOf, proposalsOfStep, recordedStep, stepId, trustOf, type QueryResult, type RuntimeDeps, type StepRef } from './steps';

const ANSWER_MAX_BYTES = 256 * 1024;

/** `N dropped by max_proposal_versions` as the merchant-query step recorded it. */
const droppedOf = (summary: string) => Number(/(\d+) dropped by max_proposal_versions/.exec(summary)?.[1] ?? 0);

export type MerchantQuery = StepRef & { intentId: string; merchantId: string; maxProposals: number; deadlineMs: number };

/** What one merchant was asked and answered, before its step is recorded. */
type Asked =
  { kind: 'answered'; offered: MerchantOffer[] } | { kind: 'no_answer'; status: 'failed' | 'timeout'; output: string; error: string };
type MerchantOffer = z.infer<typeof MerchantQueryAnswer>['proposals'][number];

/**
 * One merchant-query step in three parts, so that several merchants can be asked at once and their
 * steps still recorded one after another in merchant order (`queryMerchantAgents`): `load` reads what
 * the step needs and what an earlier attempt recorded, `ask` POSTs to the merchant, `record` stores
 * the proposals that fit `keep` (the proposal versions left) and writes the step.
 */
async function loadStep(deps: RuntimeDeps, s: MerchantQuery, intentRead?: Promise<IntentRow>) {
  const { db } = deps;
  const id = stepId(s);
  const [m, intent, recorded, already] = await Promise.all([
    db
      .selectFrom('merchants')
      .select(['merchant_id', 'agent_endpoint', 'webhook_secret_sealed'])
      .where('merchant_id', '=', s.merchantId)
      .executeTakeFirstOrThrow(),
    // The merchants of one round share one read of their intent.
    intentRead ?? getIntent(db, s.intentId, SYSTEM),
    recordedStep(db, s),
    proposalsOfStep(db, s.intentId, id),
  ]);
  return { s, id, m, intent, recorded, already, startedAt: new Date() };
}
type LoadedStep = Awaited<ReturnType<typeof loadStep>>;

/**
 * The step and its effects are one unit keyed by (runtime, index): an attempt that recorded the
 * step answered; one that died after storing proposals but before recording the step has the step
 * recorded now from what it stored. Either way the merchant is not asked again.
 */
const answeredBefore = (l: LoadedStep) => Boolean(l.recorded || l.already.length);

/** POSTs the intent to the merchant's agent_endpoint with the step's deadline and reads its answer. */
async function ask(deps: RuntimeDeps, l: LoadedStep): Promise<Asked> {
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
  if (res.outcome !== 'accepted')
    return { kind: 'no_answer', status: 'failed', output: `merchant answered HTTP ${res.status}`, error: `http_${res.status}` };
  let answer;
  try {
    answer = MerchantQueryAnswer.safeParse(JSON.parse(res.body.toString('utf8') || '{}'));
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return { kind: 'no_answer', status: 'failed', output: 'the answer is not JSON', error: 'invalid_answer: not JSON' };
  }
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
 * Records the step: from an earlier attempt's record or stored proposals, or from `asked` (the
 * merchant's answer), of which at most `keep` proposals are stored; the rest are `dropped`.
 */
async function record(deps: RuntimeDeps, l: LoadedStep, keep: number, asked?: Asked): Promise<QueryResult> {
  const { db } = deps;
  const { s, m, id, recorded, already } = l;
  if (recorded) {
    return {
      status: recorded.status as QueryResult['status'],
      proposalIds: already.map((p) => p.proposal_id),
      dropped: droppedOf(recorded.output_summary),
    };
  }
  const write = (status: QueryResult['status'], output: string, stored: ProposalRow[], error: string | null) =>
    recordStep(db, {
      ...s,
      agentId: m.merchant_id,
      kind: 'merchant_query',
      status,
      inputSummary: `intent ${s.intentId} → POST ${m.agent_endpoint} (deadline ${s.deadlineMs} ms, up to ${s.maxProposals} proposal(s))`,
      outputSummary: output,
      consumed: consumedOf(1, 1, stored.length),
      startedAt: l.startedAt,
      error,
    });
  if (already.length) {
    await write(
      'succeeded',
      `${already.length} proposal(s) kept (stored by an earlier attempt of this step): ${already.map((p) => p.proposal_id).join(', ')}`,
      already,
      null,
    );
    return { status: 'succeeded', proposalIds: already.map((p) => p.proposal_id), dropped: 0 };
  }
  if (!asked) throw new Error(`merchant query ${id} was never asked`);
  if (asked.kind === 'no_answer') {
    await write(asked.status, asked.output, [], asked.error);
    return { status: asked.status, proposalIds: [], dropped: 0 };
  }
  const offered = asked.offered;
  const kept = offered.slice(0, keep);
  const stored: ProposalRow[] = [];
  const rejected: string[] = [];
  for (const p of kept) {
    try {
      stored.push(
        await submitProposal(
          db,
          {
            ...p,
            merchant_agent_id: m.merchant_id,
            intent_id: s.intentId,
            provenance: p.provenance ?? 'merchant_agent_runtime',
            metadata: { ...p.metadata, runtime_id: s.runtimeId, runtime_step: id },
          },
          SYSTEM,
        ),
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
  await write(
    'succeeded',
    `${offered.length} proposal(s) offered, ${stored.length} kept: ${described.join('; ') || 'none'}${rejected.length ? `; rejected ${rejected.join(', ')}` : ''}${dropped ? `; ${dropped} dropped by max_proposal_versions` : ''}`,
    stored,
    null,
  );
  return { status: 'succeeded', proposalIds: stored.map((p) => p.proposal_id), dropped };
}

/**
 * Step `merchant_query`: POST the intent to the merchant's agent_endpoint with a deadline; its
 * JSON answer `{proposals: [...]}` becomes proposals (each one a proposal version), scored by
 * trust against the catalog. A slow, failing or malformed merchant is a recorded step, not an error.
 * (The activity of runs from before `queryMerchantAgents`.)
 */
export async function queryMerchantAgent(deps: RuntimeDeps, s: MerchantQuery): Promise<QueryResult> {
  const l = await loadStep(deps, s);
  return record(deps, l, s.maxProposals, answeredBefore(l) ? undefined : await ask(deps, l));
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
export async function queryMerchantAgents(deps: RuntimeDeps, q: MerchantQueries): Promise<QueryResult[]> {
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
    const intent = getIntent(deps.db, q.intentId, SYSTEM);
    const loaded = await Promise.all(round.map((s) => loadStep(deps, s, intent)));
    const asked = await Promise.all(loaded.map((l) => (answeredBefore(l) ? undefined : ask(deps, l))));
    for (const [i, l] of loaded.entries()) {
      const r = await record(deps, l, left, asked[i]);
      out.push(r);
      left -= r.proposalIds.length;
      if (r.dropped > 0) return out;
      if (left <= 0) break;
    }
    next += round.length;
  }
  return out;
}

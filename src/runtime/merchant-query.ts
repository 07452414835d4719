import { AppError } from '../errors';
import { getIntent, intentView } from '../matching/intents';
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

/**
 * Step `merchant_query`: POST the intent to the merchant's agent_endpoint with a deadline; its
 * JSON answer `{proposals: [...]}` becomes proposals (each one a proposal version), scored by
 * trust against the catalog. A slow, failing or malformed merchant is a recorded step, not an error.
 */
export async function queryMerchantAgent(deps: RuntimeDeps, s: MerchantQuery): Promise<QueryResult> {
  const { db, config } = deps;
  const startedAt = new Date();
  const id = stepId(s);
  const [m, intent, recorded, already] = await Promise.all([
    db
      .selectFrom('merchants')
      .select(['merchant_id', 'agent_endpoint', 'webhook_secret_sealed'])
      .where('merchant_id', '=', s.merchantId)
      .executeTakeFirstOrThrow(),
    getIntent(db, s.intentId, SYSTEM),
    recordedStep(db, s),
    proposalsOfStep(db, s.intentId, id),
  ]);
  // The step and its effects are one unit keyed by (runtime, index): an attempt that recorded the
  // step answered; one that died after storing proposals but before recording the step has the
  // step recorded now from what it stored. Either way the merchant is not asked again.
  if (recorded) {
    return {
      status: recorded.status as QueryResult['status'],
      proposalIds: already.map((p) => p.proposal_id),
      dropped: droppedOf(recorded.output_summary),
    };
  }
  const respondBy = new Date(startedAt.getTime() + s.deadlineMs);
  const payload = JSON.stringify({
    type: 'runtime.query',
    timestamp: startedAt.toISOString(),
    data: {
      runtime_id: s.runtimeId,
      step_id: id,
      merchant_id: m.merchant_id,
      intent: intentView(intent),
      respond_by: respondBy.toISOString(),
      max_proposals: s.maxProposals,
    },
  });
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
    await record(
      'succeeded',
      `${already.length} proposal(s) kept (stored by an earlier attempt of this step): ${already.map((p) => p.proposal_id).join(', ')}`,
      already,
      null,
    );
    return { status: 'succeeded', proposalIds: already.map((p) => p.proposal_id), dropped: 0 };
  }

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
    await record(status, `no answer: ${res.failure.reason}`, [], `${res.failure.reason}: ${res.failure.message}`);
    return { status, proposalIds: [], dropped: 0 };
  }
  if (res.outcome !== 'accepted') {
    await record('failed', `merchant answered HTTP ${res.status}`, [], `http_${res.status}`);
    return { status: 'failed', proposalIds: [], dropped: 0 };
  }
  let answer;
  try {
    answer = MerchantQueryAnswer.safeParse(JSON.parse(res.body.toString('utf8') || '{}'));
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    await record('failed', 'the answer is not JSON', [], 'invalid_answer: not JSON');
    return { status: 'failed', proposalIds: [], dropped: 0 };
  }
  if (!answer.success) {
    const issue = answer.error.issues[0];
    await record(
      'failed',
      'the answer does not follow the query contract',
      [],
      `invalid_answer: ${issue?.path.join('.') || 'body'} ${issue?.message ?? ''}`.trim(),
    );
    return { status: 'failed', proposalIds: [], dropped: 0 };
  }
  const offered = answer.data.proposals;
  const kept = offered.slice(0, s.maxProposals);
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
  await record(
    'succeeded',
    `${offered.length} proposal(s) offered, ${stored.length} kept: ${described.join('; ') || 'none'}${rejected.length ? `; rejected ${rejected.join(', ')}` : ''}${dropped ? `; ${dropped} dropped by max_proposal_versions` : ''}`,
    stored,
    null,
  );
  return { status: 'succeeded', proposalIds: stored.map((p) => p.proposal_id), dropped };
}

import * as wf from '@temporalio/workflow';
import type { RuntimeActivities } from '../activities/runtime';
import type { CommerceBudget } from '../src/db/schema-runtime';
import { searchAttributes as SA } from '../src/temporal/names';

export interface RuntimeInput {
  runtimeId: string;
  budget: CommerceBudget;
  /** Each merchant agent's answer deadline. */
  merchantDeadlineMs: number;
}

export interface RuntimeOutcome {
  runtimeId: string;
  stage: string;
  auditStatus: string;
  intentId: string | null;
  proposalId: string | null;
  matchSessionId: string | null;
  matchTokenId: string | null;
}

const bookkeepingOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 5 },
} as const;
/**
 * The bookkeeping steps are short Postgres writes: as local activities they skip two server round
 * trips each (docs/BENCHMARKS.md). Runs started before this patch keep ordinary activities on replay.
 */
export const LOCAL_BOOKKEEPING_PATCH = 'runtime-local-bookkeeping';
const remoteBookkeeping = wf.proxyActivities<RuntimeActivities>(bookkeepingOptions);
const localBookkeeping = wf.proxyLocalActivities<RuntimeActivities>(bookkeepingOptions);

/**
 * The commerce runtime (docs/RUNTIME.md): an auditable agent loop. Every iteration is an AgentStep
 * recorded by its activity; the budgets are counted here. When the merchant-query or proposal-version
 * budget runs out, collecting stops and the loop ranks what it has; when the iteration budget runs
 * out, the loop stops where it is. Either way runtime_trace.audit_status says which budget.
 */
export async function commerceRuntime(input: RuntimeInput): Promise<RuntimeOutcome> {
  const { budget, runtimeId } = input;
  const bookkeeping = wf.patched(LOCAL_BOOKKEEPING_PATCH) ? localBookkeeping : remoteBookkeeping;
  // The merchant call's own deadline bounds it; a little more covers the bookkeeping around it.
  const merchants = wf.proxyActivities<RuntimeActivities>({
    startToCloseTimeout: input.merchantDeadlineMs + 15_000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
  });
  const consumed = { iterations: 0, merchant_queries: 0, proposal_versions: 0 };
  const out: RuntimeOutcome = { runtimeId, stage: 'stopped', auditStatus: 'completed', intentId: null, proposalId: null, matchSessionId: null, matchTokenId: null };
  let exhausted: string | null = null;
  let index = 0;
  const collected: string[] = [];
  const stage = (s: string) => {
    wf.upsertSearchAttributes([{ key: SA.FlowStage, value: s }]);
    wf.setCurrentDetails(`${s}: ${consumed.iterations}/${budget.max_agent_iterations} iterations, ${consumed.merchant_queries}/${budget.max_merchant_queries} merchant queries, ${consumed.proposal_versions}/${budget.max_proposal_versions} proposal versions`);
  };
  /** True when one more AgentStep fits the iteration budget; otherwise the loop stops there. */
  const step = () => {
    if (consumed.iterations < budget.max_agent_iterations) {
      consumed.iterations++;
      return true;
    }
    exhausted = 'max_agent_iterations';
    return false;
  };
  const finish = async (finalStage: string, audit: string) => {
    out.stage = finalStage;
    out.auditStatus = audit;
    stage(finalStage);
    await bookkeeping.finishRuntime({ runtimeId, stage: finalStage, auditStatus: audit, bestProposalIds: out.matchTokenId ? undefined : collected });
    if (!out.matchTokenId && collected.length) out.proposalId ??= collected[0]!;
    return out;
  };
  const stopped = () => finish('stopped', `budget_exhausted:${exhausted}`);

  try {
    stage('resolving_intent');
    step();
    const resolved = await bookkeeping.resolveRuntimeIntent({ runtimeId, index: index++ });
    out.intentId = resolved.intentId;
    wf.upsertSearchAttributes([{ key: SA.IntentId, value: resolved.intentId }]);

    stage('querying_merchants');
    for (const merchantId of resolved.merchants) {
      if (consumed.merchant_queries >= budget.max_merchant_queries) {
        exhausted = 'max_merchant_queries';
        break;
      }
      if (consumed.proposal_versions >= budget.max_proposal_versions) {
        exhausted = 'max_proposal_versions';
        break;
      }
      if (!step()) return await stopped();
      const r = await merchants.queryMerchantAgent({
        runtimeId,
        index: index++,
        intentId: resolved.intentId,
        merchantId,
        maxProposals: budget.max_proposal_versions - consumed.proposal_versions,
        deadlineMs: input.merchantDeadlineMs,
      });
      consumed.merchant_queries++;
      consumed.proposal_versions += r.proposalIds.length;
      collected.push(...r.proposalIds);
      if (r.dropped > 0) {
        exhausted = 'max_proposal_versions';
        break;
      }
    }
    // Without a merchant proposal the catalog answers (one more proposal version).
    if (collected.length === 0 && consumed.proposal_versions < budget.max_proposal_versions) {
      if (!step()) return await stopped();
      const r = await bookkeeping.queryCatalog({ runtimeId, index: index++, intentId: resolved.intentId });
      consumed.proposal_versions += r.proposalIds.length;
      collected.push(...r.proposalIds);
    }
    const collectionAudit = exhausted ? `budget_exhausted:${exhausted}` : 'completed';
    if (collected.length === 0) return await finish('stopped', exhausted ? collectionAudit : 'no_proposals');

    stage('ranking');
    if (!step()) return await stopped();
    const ranked = await bookkeeping.rankRuntimeProposals({ runtimeId, index: index++, intentId: resolved.intentId, proposalIds: collected });
    out.matchSessionId = ranked.matchSessionId;
    if (!ranked.chosenProposalId) return await finish('stopped', 'no_ranked_proposals');
    out.proposalId = ranked.chosenProposalId;

    stage('minting_token');
    if (!step()) return await stopped();
    const minted = await bookkeeping.mintRuntimeToken({ runtimeId, index: index++, matchSessionId: ranked.matchSessionId, proposalId: ranked.chosenProposalId });
    out.matchTokenId = minted.matchTokenId;

    if (budget.require_user_confirmation_before_payment) return await finish('awaiting_user_confirmation', collectionAudit);
    if (!step()) return await stopped();
    await bookkeeping.authorizeRuntimePayment({ runtimeId, index: index++, matchTokenId: minted.matchTokenId });
    return await finish('payment_authorized', collectionAudit);
  } catch (err) {
    if (!(err instanceof wf.ActivityFailure)) throw err;
    const cause = err.cause instanceof wf.ApplicationFailure ? (err.cause.type ?? 'error') : (err.cause?.message ?? err.message);
    return await finish('failed', `failed:${cause}`);
  }
}

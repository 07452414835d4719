import * as wf from '@temporalio/workflow';
import type { RuntimeActivities } from '../activities/runtime';
import { searchAttributes as SA } from '../src/temporal/names';
import type { RuntimeInput, RuntimeOutcome, RuntimeStage } from './runtime.shared';
import { flowStage } from './stage';
import { statesVersioning } from './versioning';

/**
 * The loop's own deadline: its Postgres steps retry until Postgres is back (bounded backoff, no
 * attempt cap), for at most this long in all; past it the run ends `failed:runtime_deadline_exceeded`.
 */
export const RUNTIME_DEADLINE = '15 minutes';
/** Backoff of a step that only needs Postgres: every 1, 2, 4, 8, then 10 s while it is away. */
const untilPostgresAnswers = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' } as const;
const bookkeepingOptions = {
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: RUNTIME_DEADLINE,
  retry: untilPostgresAnswers,
} as const;
/**
 * Ending the run is never skipped: its stage and audit status are written however long Postgres is
 * away, so a run never closes while its row says it runs (the runtime reconciler covers the rest:
 * a run terminated or reset from outside).
 */
const finishOptions = { startToCloseTimeout: '1 minute', retry: untilPostgresAnswers } as const;
/** What an operator does about a failed run, by error code (details of the workflow failure). */
function nextAction(code: string): string {
  switch (code) {
    case 'runtime_deadline_exceeded':
      return 'A step could not finish within the run deadline (Postgres or a merchant away for long): check /healthz and the worker logs, then start a new run.';
    case 'runtime_not_found':
      return 'The runtime row is gone (the API gave up starting it): nothing to do; the caller got 503 and may retry.';
    case 'cancelled':
      return 'The run was cancelled from outside; start a new run if it is still wanted.';
    default:
      return "Read the run's agent_steps (GET /v1/commerce-runtime/{id}) for the failed step; fix its cause, then start a new run.";
  }
}
/** The bookkeeping steps are short Postgres writes: local activities skip two server round trips each (docs/BENCHMARKS.md). */
const bookkeeping = wf.proxyLocalActivities<RuntimeActivities>(bookkeepingOptions);
const finishing = wf.proxyLocalActivities<RuntimeActivities>(finishOptions);

/**
 * The commerce runtime (docs/RUNTIME.md): an auditable agent loop. Every iteration is an AgentStep
 * recorded by its activity; the budgets are counted here. When the merchant-query or proposal-version
 * budget runs out, collecting stops and the loop ranks what it has; when the iteration budget runs
 * out, the loop stops where it is. Either way runtime_trace.audit_status says which budget.
 */
export async function commerceRuntime(input: RuntimeInput): Promise<RuntimeOutcome> {
  const { budget, runtimeId } = input;
  // What the start already wrote (src/runtime/client.ts starts a run with its intent's id): not written again.
  const atStart = { memo: wf.workflowInfo().memo?.intent_id, searchAttribute: wf.workflowInfo().typedSearchAttributes.get(SA.IntentId) };
  const consumed = { iterations: 0, merchant_queries: 0, proposal_versions: 0 };
  const out: RuntimeOutcome = {
    runtimeId,
    stage: 'stopped',
    auditStatus: 'completed',
    intentId: null,
    proposalId: null,
    matchSessionId: null,
    matchTokenId: null,
    chosen: null,
  };
  let exhausted: string | null = null;
  let index = 0;
  const collected: string[] = [];
  const current = flowStage<RuntimeStage>('queued');
  /**
   * The stage, with the budget consumed so far, as the run's Current Details: a run is one workflow
   * task, so its stages on the way cost no history event; FlowStage is written once, when it ends.
   */
  const detailsOf = (s: RuntimeStage, note?: string) =>
    `${s}: ${consumed.iterations}/${budget.max_agent_iterations} iterations, ${consumed.merchant_queries}/${budget.max_merchant_queries} merchant queries, ${consumed.proposal_versions}/${budget.max_proposal_versions} proposal versions${out.intentId ? `; intent ${out.intentId}` : ''}${out.chosen ? `; chose "${out.chosen.product}" from ${out.chosen.merchant_id} at ${out.chosen.price} ${out.chosen.currency}` : ''}${note ? `; ${note}` : ''}`;
  const stage = (s: RuntimeStage, note?: string) => current.show(s, detailsOf(s, note));
  /** True when one more AgentStep fits the iteration budget; otherwise the loop stops there. */
  const step = () => {
    if (consumed.iterations < budget.max_agent_iterations) {
      consumed.iterations++;
      return true;
    }
    exhausted = 'max_agent_iterations';
    return false;
  };
  /** The run's end as the workflow shows it (its stage, audit status and search attributes). */
  const ended = (finalStage: RuntimeStage, audit: string, note?: string) => {
    out.stage = finalStage;
    out.auditStatus = audit;
    current.set(
      finalStage,
      detailsOf(finalStage, note ?? audit),
      out.intentId && out.intentId !== atStart.searchAttribute ? [{ key: SA.IntentId, value: out.intentId }] : [],
    );
  };
  const finish = async (finalStage: RuntimeStage, audit: string, note?: string) => {
    ended(finalStage, audit, note);
    await finishing.finishRuntime({
      runtimeId,
      stage: finalStage,
      auditStatus: audit,
      bestProposalIds: out.matchTokenId ? undefined : collected,
    });
    if (!out.matchTokenId && collected.length) out.proposalId ??= collected[0]!;
    return out;
  };
  const stopped = () => finish('stopped', `budget_exhausted:${exhausted}`);

  try {
    stage('resolving_intent');
    step();
    // The merchants the loop below can reach: those within the merchant-query and iteration budgets,
    // while proposal versions are left. One local activity resolves the intent and asks them at once
    // (their latencies overlap); the loop then counts their recorded steps exactly as it would count
    // one query at a time (queryMerchantAgents says which steps get recorded).
    const reachable =
      consumed.proposal_versions < budget.max_proposal_versions
        ? Math.max(0, Math.min(budget.max_merchant_queries - consumed.merchant_queries, budget.max_agent_iterations - consumed.iterations))
        : 0;
    const { answers, ...resolved } = await wf
      .proxyLocalActivities<RuntimeActivities>({
        // The round of merchants is bounded by their deadline; a little more covers the bookkeeping.
        startToCloseTimeout: Math.max(60_000, input.merchantDeadlineMs * reachable + 15_000),
        scheduleToCloseTimeout: RUNTIME_DEADLINE,
        retry: untilPostgresAnswers,
      })
      .resolveAndQueryMerchants({
        runtimeId,
        index: index++,
        maxMerchants: reachable,
        maxProposals: budget.max_proposal_versions - consumed.proposal_versions,
        deadlineMs: input.merchantDeadlineMs,
      });
    out.intentId = resolved.intentId;
    if (atStart.memo !== resolved.intentId) wf.upsertMemo({ intent_id: resolved.intentId });

    stage('querying_merchants');
    for (const [j, merchantId] of resolved.merchants.entries()) {
      if (consumed.merchant_queries >= budget.max_merchant_queries) {
        exhausted = 'max_merchant_queries';
        break;
      }
      if (consumed.proposal_versions >= budget.max_proposal_versions) {
        exhausted = 'max_proposal_versions';
        break;
      }
      if (!step()) return await stopped();
      const r = answers[j];
      index++;
      if (!r) throw wf.ApplicationFailure.nonRetryable(`merchant query ${j} (${merchantId}) was not recorded`, 'runtime_step_failed');
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
    // One local activity ranks and, when the mint step fits the iteration budget, mints the token. A
    // run that awaits the user's confirmation ends with the mint, which then writes its end too.
    const mintFits = consumed.iterations < budget.max_agent_iterations;
    const mintFinishes = budget.require_user_confirmation_before_payment;
    const ranked = await bookkeeping.rankAndMintRuntimeToken({
      runtimeId,
      index: index++,
      intentId: resolved.intentId,
      proposalIds: collected,
      mint: mintFits ? (mintFinishes ? { finish: { stage: 'awaiting_user_confirmation', auditStatus: collectionAudit } } : {}) : null,
    });
    out.matchSessionId = ranked.matchSessionId;
    if (!ranked.chosenProposalId) return await finish('stopped', 'no_ranked_proposals');
    out.proposalId = ranked.chosenProposalId;
    out.chosen = ranked.chosen ?? null;

    stage('minting_token');
    // (The mint happened with the rank exactly when this step fits.)
    if (!step()) return await stopped();
    index++;
    out.matchTokenId = ranked.matchTokenId;
    if (mintFinishes) {
      ended('awaiting_user_confirmation', collectionAudit);
      return out;
    }

    if (!step()) return await stopped();
    // (Minted with the rank: the mint step fitted.)
    const paid = await bookkeeping.authorizeRuntimePayment({ runtimeId, index: index++, matchTokenId: ranked.matchTokenId! });
    // A seller without an order-taking agent: nothing was authorized; the user continues on its page.
    if (paid.authorizationId === null) return await finish('awaiting_user_confirmation', collectionAudit);
    return await finish('payment_authorized', collectionAudit);
  } catch (err) {
    if (wf.isCancellation(err)) {
      // Cancelled from outside: the row still records the end (outside the cancelled scope).
      await wf.CancellationScope.nonCancellable(() => finish('failed', 'failed:cancelled'));
      throw err;
    }
    // A local activity's failure arrives unwrapped: the ApplicationFailure (a business failure typed
    // with its error code) or the TimeoutFailure of the run's deadline itself.
    if (!(err instanceof wf.ApplicationFailure) && !(err instanceof wf.TimeoutFailure)) throw err;
    const code = err instanceof wf.ApplicationFailure ? (err.type ?? 'error') : 'runtime_deadline_exceeded';
    const reason = err.message;
    const failedAt = current.current;
    await finish('failed', `failed:${code}`, `step failed: ${reason}`);
    // The API still answers the run as stored (stage failed); Temporal shows it as the failure it is.
    throw wf.ApplicationFailure.create({
      type: code,
      message: `Commerce runtime ${runtimeId} failed at ${failedAt}: ${reason}`,
      nonRetryable: true,
      details: [
        {
          runtime_id: runtimeId,
          intent_id: out.intentId,
          step: null,
          stage: failedAt,
          reason,
          next_action: nextAction(code),
        },
      ],
    });
  }
}
// Pinned: a run is one workflow task of seconds (bounded by RUNTIME_DEADLINE); it finishes where it started.
statesVersioning('PINNED', commerceRuntime);

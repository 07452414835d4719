import * as wf from '@temporalio/workflow';
import type { RuntimeActivities } from '../activities/runtime';
import { searchAttributes as SA } from '../src/temporal/names';
import type { RuntimeInput, RuntimeOutcome, RuntimeStage } from './runtime.shared';
import type { QueryResult, RankResult, ResolvedIntent } from '../src/runtime/steps';
import { flowStage } from './stage';

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
/**
 * Runs started before this patch end `Completed` whatever happened and carry no memo updates; from
 * it on a business failure ends the run `Failed` (an ApplicationFailure typed with the error code),
 * so `ExecutionStatus="Failed"` and the UI's Failures view find it, and the memo gains the intent.
 */
export const RUNTIME_VISIBILITY_PATCH = 'runtime-failures-visible';

/**
 * From this patch on the authorize step authorizes only for a seller whose agent takes the order and
 * a run whose step skipped ends `awaiting_user_confirmation`. (Before it, the step always authorized,
 * so recorded histories never see a skipped step.)
 */
export const RUNTIME_AUTHORIZE_HANDOFF_ONLY_PATCH = 'runtime-authorize-handoff-only';

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
/**
 * The bookkeeping steps are short Postgres writes: as local activities they skip two server round
 * trips each (docs/BENCHMARKS.md). Runs started before this patch keep ordinary activities on replay.
 */
export const LOCAL_BOOKKEEPING_PATCH = 'runtime-local-bookkeeping';
/**
 * From this patch on a run is one workflow task: the merchants of the query step are asked at once
 * by one local activity (their latencies overlap; each query is still its own AgentStep, recorded in
 * merchant order), and the stage is written to `FlowStage` once, when the run ends (`IntentId` too,
 * unless the start set it); on the way it is the run's Current Details, which cost no history event.
 * The earlier patches are implied by it (no markers of their own). Runs started before it replay
 * their old commands.
 */
export const RUNTIME_ONE_TASK_PATCH = 'runtime-merchants-at-once';
/**
 * From this patch on a run that ends awaiting the user's confirmation is finished by its mint step
 * (the step's statement writes the final stage and audit status): one local activity fewer, so one
 * activation and one Postgres statement fewer per run. It implies the patch above (no marker of its
 * own). Runs started before it call finishRuntime.
 */
export const RUNTIME_MINT_FINISHES_PATCH = 'runtime-mint-finishes';
/**
 * From this patch on a run has two activations fewer: one local activity resolves the intent and
 * asks its merchants (the merchants the budgets let the loop reach are known before the intent is),
 * and one ranks the proposals and mints the token. The steps recorded are the same. It implies the
 * patches above (no markers of their own). Runs started before it call the steps one by one.
 */
export const RUNTIME_FEWER_ACTIVATIONS_PATCH = 'runtime-fewer-activations';
const remoteBookkeeping = wf.proxyActivities<RuntimeActivities>(bookkeepingOptions);
const localBookkeeping = wf.proxyLocalActivities<RuntimeActivities>(bookkeepingOptions);
const remoteFinish = wf.proxyActivities<RuntimeActivities>(finishOptions);
const localFinish = wf.proxyLocalActivities<RuntimeActivities>(finishOptions);

/**
 * The commerce runtime (docs/RUNTIME.md): an auditable agent loop. Every iteration is an AgentStep
 * recorded by its activity; the budgets are counted here. When the merchant-query or proposal-version
 * budget runs out, collecting stops and the loop ranks what it has; when the iteration budget runs
 * out, the loop stops where it is. Either way runtime_trace.audit_status says which budget.
 */
export async function commerceRuntime(input: RuntimeInput): Promise<RuntimeOutcome> {
  const { budget, runtimeId } = input;
  // The newest patch implies the older ones: a run carries one marker (and one TemporalChangeVersion write).
  const fewerActivations = wf.patched(RUNTIME_FEWER_ACTIVATIONS_PATCH);
  const mintFinishesPatch = fewerActivations || wf.patched(RUNTIME_MINT_FINISHES_PATCH);
  const oneTask = mintFinishesPatch || wf.patched(RUNTIME_ONE_TASK_PATCH);
  const local = oneTask || wf.patched(LOCAL_BOOKKEEPING_PATCH);
  const visible = () => oneTask || wf.patched(RUNTIME_VISIBILITY_PATCH);
  // What the start already wrote (src/runtime/client.ts starts a run with its intent's id): not written again.
  const atStart = { memo: wf.workflowInfo().memo?.intent_id, searchAttribute: wf.workflowInfo().typedSearchAttributes.get(SA.IntentId) };
  const bookkeeping = local ? localBookkeeping : remoteBookkeeping;
  const finishing = local ? localFinish : remoteFinish;
  // The merchant call's own deadline bounds one attempt; a little more covers the bookkeeping around
  // it. A merchant's own failure is a recorded step, not an error: what fails the activity is
  // Postgres, so it retries like the bookkeeping until the run's deadline.
  const merchants = wf.proxyActivities<RuntimeActivities>({
    startToCloseTimeout: input.merchantDeadlineMs + 15_000,
    scheduleToCloseTimeout: RUNTIME_DEADLINE,
    retry: untilPostgresAnswers,
  });
  const consumed = { iterations: 0, merchant_queries: 0, proposal_versions: 0 };
  const out: RuntimeOutcome = {
    runtimeId,
    stage: 'stopped',
    auditStatus: 'completed',
    intentId: null,
    proposalId: null,
    matchSessionId: null,
    matchTokenId: null,
  };
  let exhausted: string | null = null;
  let index = 0;
  const collected: string[] = [];
  const current = flowStage<RuntimeStage>('queued');
  /** The stage, with the budget consumed so far as the run's Current Details. */
  const detailsOf = (s: RuntimeStage, note?: string) =>
    `${s}: ${consumed.iterations}/${budget.max_agent_iterations} iterations, ${consumed.merchant_queries}/${budget.max_merchant_queries} merchant queries, ${consumed.proposal_versions}/${budget.max_proposal_versions} proposal versions${out.intentId ? `; intent ${out.intentId}` : ''}${note ? `; ${note}` : ''}`;
  const stage = (s: RuntimeStage, note?: string) => (oneTask ? current.show(s, detailsOf(s, note)) : current.set(s, detailsOf(s, note)));
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
    if (oneTask)
      current.set(
        finalStage,
        detailsOf(finalStage, note ?? audit),
        out.intentId && out.intentId !== atStart.searchAttribute ? [{ key: SA.IntentId, value: out.intentId }] : [],
      );
    else stage(finalStage, note ?? audit);
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
    // while proposal versions are left. They are asked at once (with the resolve step, from the
    // fewer-activations patch on); the loop then counts their recorded steps exactly as it counts
    // one query at a time (queryMerchantAgents says which steps get recorded).
    const reachable = () =>
      consumed.proposal_versions < budget.max_proposal_versions
        ? Math.max(0, Math.min(budget.max_merchant_queries - consumed.merchant_queries, budget.max_agent_iterations - consumed.iterations))
        : 0;
    const merchantRound = (merchants: number) => ({
      // Every round of merchants is bounded by their deadline; a little more covers the bookkeeping.
      startToCloseTimeout: Math.max(60_000, input.merchantDeadlineMs * merchants + 15_000),
      scheduleToCloseTimeout: RUNTIME_DEADLINE,
      retry: untilPostgresAnswers,
    });
    const query = { maxProposals: budget.max_proposal_versions - consumed.proposal_versions, deadlineMs: input.merchantDeadlineMs };
    let resolved: ResolvedIntent;
    let answers: Array<QueryResult | undefined> = [];
    if (fewerActivations) {
      const maxMerchants = reachable();
      ({ answers, ...resolved } = await wf
        .proxyLocalActivities<RuntimeActivities>(merchantRound(maxMerchants))
        .resolveAndQueryMerchants({ runtimeId, index: index++, maxMerchants, ...query }));
    } else {
      resolved = await bookkeeping.resolveRuntimeIntent({ runtimeId, index: index++ });
    }
    out.intentId = resolved.intentId;
    if (!oneTask) wf.upsertSearchAttributes([{ key: SA.IntentId, value: resolved.intentId }]);
    if (visible() && !(oneTask && atStart.memo === resolved.intentId)) wf.upsertMemo({ intent_id: resolved.intentId });

    stage('querying_merchants');
    if (oneTask && !fewerActivations) {
      const asked = resolved.merchants.slice(0, reachable());
      if (asked.length)
        answers = await wf
          .proxyLocalActivities<RuntimeActivities>(merchantRound(asked.length))
          .queryMerchantAgents({ runtimeId, index, intentId: resolved.intentId, merchantIds: asked, ...query });
    }
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
      const r = oneTask
        ? answers[j]
        : await merchants.queryMerchantAgent({
            runtimeId,
            index,
            intentId: resolved.intentId,
            merchantId,
            maxProposals: budget.max_proposal_versions - consumed.proposal_versions,
            deadlineMs: input.merchantDeadlineMs,
          });
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
    // A run that awaits the user's confirmation ends with the mint step, which then writes its end too.
    const mintFinishes = mintFinishesPatch && budget.require_user_confirmation_before_payment;
    const mint = mintFinishes ? { finish: { stage: 'awaiting_user_confirmation', auditStatus: collectionAudit } } : {};
    const rankStep = { runtimeId, index: index++, intentId: resolved.intentId, proposalIds: collected };
    // From the fewer-activations patch on the rank step mints too, when the mint step fits the iteration budget.
    const ranked: RankResult & { matchTokenId?: string | null } = fewerActivations
      ? await bookkeeping.rankAndMintRuntimeToken({ ...rankStep, mint: consumed.iterations < budget.max_agent_iterations ? mint : null })
      : await bookkeeping.rankRuntimeProposals(rankStep);
    out.matchSessionId = ranked.matchSessionId;
    if (!ranked.chosenProposalId) return await finish('stopped', 'no_ranked_proposals');
    out.proposalId = ranked.chosenProposalId;

    stage('minting_token');
    if (!step()) return await stopped();
    const minted = ranked.matchTokenId
      ? { matchTokenId: ranked.matchTokenId }
      : await bookkeeping.mintRuntimeToken({
          runtimeId,
          index,
          matchSessionId: ranked.matchSessionId,
          proposalId: ranked.chosenProposalId,
          ...mint,
        });
    index++;
    out.matchTokenId = minted.matchTokenId;
    if (mintFinishes) {
      ended('awaiting_user_confirmation', collectionAudit);
      return out;
    }

    if (budget.require_user_confirmation_before_payment) return await finish('awaiting_user_confirmation', collectionAudit);
    if (!step()) return await stopped();
    const paid = await bookkeeping.authorizeRuntimePayment({ runtimeId, index: index++, matchTokenId: minted.matchTokenId });
    // A seller without an order-taking agent: nothing was authorized; the user continues on its page.
    if (paid.authorizationId === null && (oneTask || wf.patched(RUNTIME_AUTHORIZE_HANDOFF_ONLY_PATCH)))
      return await finish('awaiting_user_confirmation', collectionAudit);
    return await finish('payment_authorized', collectionAudit);
  } catch (err) {
    if (wf.isCancellation(err)) {
      // Cancelled from outside: the row still records the end (outside the cancelled scope).
      await wf.CancellationScope.nonCancellable(() => finish('failed', 'failed:cancelled'));
      throw err;
    }
    // A local activity's failure arrives unwrapped: the ApplicationFailure (or the TimeoutFailure of
    // its deadline) itself.
    const activityFailed = err instanceof wf.ActivityFailure;
    if (!activityFailed && !(err instanceof wf.ApplicationFailure) && !(err instanceof wf.TimeoutFailure)) throw err;
    const failuresVisible = visible();
    if (!activityFailed && !failuresVisible) throw err;
    const failure = err instanceof wf.ActivityFailure ? err.cause : (err as wf.ApplicationFailure | wf.TimeoutFailure);
    const activityType = err instanceof wf.ActivityFailure ? err.activityType : undefined;
    const code = !failuresVisible
      ? null
      : failure instanceof wf.ApplicationFailure
        ? (failure.type ?? 'error')
        : failure instanceof wf.TimeoutFailure
          ? 'runtime_deadline_exceeded'
          : 'runtime_step_failed';
    const cause = failure instanceof wf.ApplicationFailure ? (failure.type ?? 'error') : (failure?.message ?? (err as Error).message);
    const reason = failure?.message ?? (err as Error).message;
    const failedAt = current.current;
    await finish('failed', `failed:${code ?? cause}`, `${activityType ?? 'step'} failed: ${reason}`);
    if (!code) return out;
    // The API still answers the run as stored (stage failed); Temporal shows it as the failure it is.
    throw wf.ApplicationFailure.create({
      type: code,
      message: `Commerce runtime ${runtimeId} failed${activityType ? ` in ${activityType}` : ''} at ${failedAt}: ${reason}`,
      nonRetryable: true,
      details: [
        {
          runtime_id: runtimeId,
          intent_id: out.intentId,
          step: activityType ?? null,
          stage: failedAt,
          reason,
          next_action: nextAction(code),
        },
      ],
    });
  }
}

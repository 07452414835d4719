import { ApplicationFailure } from '@temporalio/activity';
import { AppError } from '../src/errors';
import type { ActivityDeps } from './index';
import {
  authorizeRuntimePayment,
  createRuntimeDeps,
  finishRuntimeRun,
  mintRuntimeToken,
  rankAndMintRuntimeToken,
  queryCatalog,
  rankRuntimeProposals,
  resolveRuntimeIntent,
  type StepRef,
} from '../src/runtime/steps';
import {
  queryMerchantAgent,
  queryMerchantAgents,
  resolveAndQueryMerchants,
  type MerchantQueries,
  type MerchantQuery,
} from '../src/runtime/merchant-query';

/**
 * A business failure (AppError) as a non-retryable ApplicationFailure typed with its error code: the
 * workflow fails the run with that type; the API maps codes to HTTP statuses.
 */
async function businessErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) throw ApplicationFailure.nonRetryable(err.message, err.code);
    throw err;
  }
}

/**
 * Activities of the commerce runtime (workflows/runtime.ts): thin wrappers over the steps in
 * src/runtime/. Their names are the activity types recorded in histories: never rename them.
 */
export function createRuntimeActivities(deps: ActivityDeps) {
  const d = createRuntimeDeps(deps);
  return {
    /** Step `resolve_intent`: store the intent (once per run) and list the merchant agents it matches. */
    resolveRuntimeIntent: (s: StepRef) => businessErrors(() => resolveRuntimeIntent(d, s)),
    /** Step `merchant_query`: a slow, failing or malformed merchant is a recorded step, not an error. */
    queryMerchantAgent: (s: MerchantQuery) => queryMerchantAgent(d, s),
    /** Steps `merchant_query` of the merchants that fit the budgets, asked at once, recorded in merchant order. */
    queryMerchantAgents: (q: MerchantQueries) => queryMerchantAgents(d, q),
    /** Step `catalog_query`: when no merchant proposed, the gateway catalog offers its best match. */
    queryCatalog: (s: StepRef & { intentId: string }) => businessErrors(() => queryCatalog(d, s)),
    /** Steps `resolve_intent` and `merchant_query` in one call: the merchants the budgets reach are asked at once. */
    resolveAndQueryMerchants: (s: Parameters<typeof resolveAndQueryMerchants>[1]) => businessErrors(() => resolveAndQueryMerchants(d, s)),
    /** Step `rank`: a match session over the collected proposals; the chosen one is the best not high-risk. */
    rankRuntimeProposals: (s: StepRef & { intentId: string; proposalIds: string[] }) => businessErrors(() => rankRuntimeProposals(d, s)),
    /** Step `mint_token`: accept the chosen proposal (a signed match token); with `finish`, the run ends with it. */
    mintRuntimeToken: (s: Parameters<typeof mintRuntimeToken>[1]) => businessErrors(() => mintRuntimeToken(d, s)),
    /** Steps `rank` and (when a proposal is chosen and `mint` is given) `mint_token` in one call. */
    rankAndMintRuntimeToken: (s: Parameters<typeof rankAndMintRuntimeToken>[1]) => businessErrors(() => rankAndMintRuntimeToken(d, s)),
    /** Step `authorize_payment` (only when the budget does not require the user's confirmation). */
    authorizeRuntimePayment: (s: StepRef & { matchTokenId: string }) => businessErrors(() => authorizeRuntimePayment(d, s)),
    /** Ends the run: its stage, the audit status and (when no token was minted) the best proposal so far. */
    finishRuntime: (f: Parameters<typeof finishRuntimeRun>[1]) => finishRuntimeRun(d, f),
  };
}

export type RuntimeActivities = ReturnType<typeof createRuntimeActivities>;

import { ApplicationFailure } from '@temporalio/activity';
import { AppError } from '../src/errors';
import type { ActivityDeps } from './deps';
import {
  authorizeRuntimePayment,
  createRuntimeDeps,
  finishRuntimeRun,
  rankAndMintRuntimeToken,
  queryCatalog,
  type StepRef,
} from '../src/runtime/steps';
import { resolveAndQueryMerchants } from '../src/runtime/merchant-query';

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
    /** Step `catalog_query`: when no merchant proposed, the gateway catalog offers its best match. */
    queryCatalog: (s: StepRef & { intentId: string }) => businessErrors(() => queryCatalog(d, s)),
    /**
     * Steps `resolve_intent` (store the intent once per run, list the merchant agents it matches) and
     * `merchant_query` of the merchants the budgets reach, asked at once and recorded in merchant order
     * (a slow, failing or malformed merchant is a recorded step, not an error).
     */
    resolveAndQueryMerchants: (s: Parameters<typeof resolveAndQueryMerchants>[1]) => businessErrors(() => resolveAndQueryMerchants(d, s)),
    /**
     * Steps `rank` (a match session over the collected proposals; the chosen one is the best not
     * high-risk) and, when a proposal is chosen and `mint` is given, `mint_token` (accept it: a signed
     * match token; with `finish`, the run ends with it).
     */
    rankAndMintRuntimeToken: (s: Parameters<typeof rankAndMintRuntimeToken>[1]) => businessErrors(() => rankAndMintRuntimeToken(d, s)),
    /** Step `authorize_payment` (only when the budget does not require the user's confirmation). */
    authorizeRuntimePayment: (s: StepRef & { matchTokenId: string }) => businessErrors(() => authorizeRuntimePayment(d, s)),
    /** Ends the run: its stage, the audit status and (when no token was minted) the best proposal so far. */
    finishRuntime: (f: Parameters<typeof finishRuntimeRun>[1]) => finishRuntimeRun(d, f),
  };
}

export type RuntimeActivities = ReturnType<typeof createRuntimeActivities>;

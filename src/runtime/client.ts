import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Db } from '../db/connect';
import { temporalUnavailable } from '../errors';
import { within } from '../time';
import type { Logger } from '../logger';
import type { TemporalHandle } from '../temporal/client';
import { searchAttributes as SA, workflowIds } from '../temporal/names';
import { waitOnWorkflow } from '../temporal/wait';
import { BUDGET_DEFAULTS, type RuntimeCreateInput } from '../schemas/runtime';
import type { CommerceRuntimeWorkflow } from '../../workflows/runtime.shared';
import { deleteRuntime, insertRuntime, loadRuntime, newRuntimeId } from './store';
import { runtimeIntentId } from './steps';
import { apiCaller } from '../tenancy';

/** How long a caller waits for the loop by default, and at most (`Prefer: wait=N`, seconds). */
export const DEFAULT_WAIT_S = 20;
export const MAX_WAIT_S = 60;
/** Each merchant agent's answer deadline (docs/RUNTIME.md, merchant query contract). */
export const MERCHANT_DEADLINE_MS = 3000;
export const DEFAULT_ENTRY_AGENT = 'api-caller';
/**
 * How long the start call may take. A healthy server accepts in milliseconds; one that is away
 * would hold the caller through the client's connection retries.
 */
export const START_DEADLINE_MS = 5000;

export type RuntimeStartResult =
  { status: 'completed'; runtime: Awaited<ReturnType<typeof loadRuntime>> } | { status: 'running'; runtimeId: string; noWorker?: boolean };

/** The memo every runtime run carries (Temporal UI, `temporal workflow describe`): its business keys. */
export function runtimeMemo(runtimeId: string, caller: { developerId?: string }, body: RuntimeCreateInput) {
  return {
    runtime_id: runtimeId,
    developer_id: caller.developerId ?? null,
    entry_agent_id: body.runtime_session?.entry_agent_id ?? DEFAULT_ENTRY_AGENT,
    raw_query: body.intent.raw_query.slice(0, 200),
    // The id the run's intent gets from its first step: known at start, so the run writes no memo for it.
    intent_id: runtimeIntentId(runtimeId),
  };
}

/**
 * Stores the run, starts `runtime-<id>` and waits for it up to `waitMs`; past that the caller gets
 * the id to poll. The workflow id is the runtime's, so a repeated start is the same run.
 *
 * `runtimeId` fixed by the caller (the request's Idempotency-Key claim): a retry after the API died
 * mid-request stores nothing new, and its start finds the workflow the first run started, running or
 * closed, and answers from it. Once the run exists the answer is never a 5xx: a wait that cannot be
 * finished (no worker, Postgres away while reading the result) is a 202 with the status URL.
 */
export async function startRuntime(
  deps: { db: Db; temporal: TemporalHandle | null; logger: Logger },
  body: RuntimeCreateInput,
  caller: { developerId?: string; keyId?: string },
  waitMs: number,
  /** Stored beside the request (e.g. the A2A context a run was started from); never read by the loop. */
  requestExtras: Record<string, unknown> = {},
  opts: { runtimeId?: string } = {},
): Promise<RuntimeStartResult> {
  const { db, temporal } = deps;
  if (!temporal) throw temporalUnavailable('The commerce runtime');
  const runtimeId = opts.runtimeId ?? newRuntimeId();
  const budget = { ...BUDGET_DEFAULTS, ...body.commerce_budget };
  const inserted = await insertRuntime(db, {
    runtimeId,
    entryAgentId: body.runtime_session?.entry_agent_id ?? DEFAULT_ENTRY_AGENT,
    mode: body.runtime_session?.mode ?? 'assisted',
    budget,
    memoryRefs: body.commerce_memory_refs ?? [],
    skillRefs: body.skill_refs ?? [],
    request: { ...requestExtras, intent: body.intent, ...(body.proposal ? { proposal: body.proposal } : {}) },
    developerId: caller.developerId ?? null,
    keyId: caller.keyId ?? null,
  });
  const workflowId = workflowIds.runtime(runtimeId);
  let handle;
  try {
    const starting = temporal.client.workflow
      .start<CommerceRuntimeWorkflow>('commerceRuntime', {
        workflowId,
        taskQueue: temporal.taskQueue,
        // With the worker in this process (`npm start`) the run's one workflow task comes back with the start.
        requestEagerStart: temporal.eagerStart,
        args: [{ runtimeId, budget, merchantDeadlineMs: MERCHANT_DEADLINE_MS }],
        workflowIdConflictPolicy: 'USE_EXISTING',
        // A closed run is never started again: a retried request answers from it.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          { key: SA.FlowStage, value: 'queued' },
          { key: SA.IntentId, value: runtimeIntentId(runtimeId) },
        ],
        memo: runtimeMemo(runtimeId, caller, body),
        staticSummary: `Commerce runtime ${runtimeId}: "${body.intent.raw_query.slice(0, 80)}"`,
      })
      .catch((err) => {
        if (err instanceof WorkflowExecutionAlreadyStartedError)
          return temporal.client.workflow.getHandle<CommerceRuntimeWorkflow>(workflowId);
        throw err;
      });
    starting.catch(() => undefined);
    handle = await within(starting, START_DEADLINE_MS);
    if (!handle) throw new Error(`the workflow start did not answer within ${START_DEADLINE_MS} ms`);
  } catch (err) {
    deps.logger.warn({ err, runtime_id: runtimeId }, 'commerce runtime could not start');
    // Not started: forget the row this request stored (a row an earlier run stored stays, with its
    // workflow). Should the late start still land, the run finds no row and fails without effect.
    if (inserted) await deleteRuntime(db, runtimeId).catch(() => undefined);
    throw temporalUnavailable('The commerce runtime');
  }
  const result = handle.result();
  // A failed run has finished too: its stored state says how.
  const waited = await waitOnWorkflow(
    temporal,
    result.then(
      () => true,
      () => true,
    ),
    waitMs,
  );
  if (!waited.done) return { status: 'running', runtimeId, noWorker: waited.noWorker };
  try {
    return { status: 'completed', runtime: await loadRuntime(db, runtimeId, apiCaller(caller.developerId)) };
  } catch (err) {
    deps.logger.warn({ err, runtime_id: runtimeId }, 'commerce runtime finished but could not be read; answering its status URL');
    return { status: 'running', runtimeId };
  }
}

import type { Db } from '../db/connect';
import { temporalUnavailable } from '../errors';
import { within } from '../time';
import type { Logger } from '../logger';
import type { TemporalHandle } from '../temporal/client';
import { searchAttributes as SA, workflowIds } from '../temporal/names';
import { BUDGET_DEFAULTS, type RuntimeCreateInput } from '../schemas/runtime';
import type { commerceRuntime } from '../../workflows/commerce-runtime';
import { deleteRuntime, insertRuntime, loadRuntime, newRuntimeId } from './store';
import { apiCaller } from '../tenancy';

/** How long a caller waits for the loop by default, and at most (`Prefer: wait=N`, seconds). */
export const DEFAULT_WAIT_S = 20;
export const MAX_WAIT_S = 60;
/** Each merchant agent's answer deadline (docs/RUNTIME.md, merchant query contract). */
export const MERCHANT_DEADLINE_MS = 3000;
export const DEFAULT_ENTRY_AGENT = 'api-caller';

export type RuntimeStartResult =
  | { status: 'completed'; runtime: Awaited<ReturnType<typeof loadRuntime>> }
  | { status: 'running'; runtimeId: string };

/**
 * Stores the run, starts `runtime-<id>` and waits for it up to `waitMs`; past that the caller gets
 * the id to poll. The workflow id is the runtime's, so a repeated start is the same run.
 */
export async function startRuntime(
  deps: { db: Db; temporal: TemporalHandle | null; logger: Logger },
  body: RuntimeCreateInput,
  caller: { developerId?: string; keyId?: string },
  waitMs: number,
  /** Stored beside the request (e.g. the A2A context a run was started from); never read by the loop. */
  requestExtras: Record<string, unknown> = {},
): Promise<RuntimeStartResult> {
  const { db, temporal } = deps;
  if (!temporal) throw temporalUnavailable('The commerce runtime');
  const runtimeId = newRuntimeId();
  const budget = { ...BUDGET_DEFAULTS, ...body.commerce_budget };
  await insertRuntime(db, {
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
  let handle;
  try {
    handle = await temporal.client.workflow.start<typeof commerceRuntime>('commerceRuntime', {
      workflowId: workflowIds.runtime(runtimeId),
      taskQueue: temporal.taskQueue,
      args: [{ runtimeId, budget, merchantDeadlineMs: MERCHANT_DEADLINE_MS }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      typedSearchAttributes: [{ key: SA.FlowStage, value: 'queued' }],
      staticSummary: `Commerce runtime ${runtimeId}: "${body.intent.raw_query.slice(0, 80)}"`,
    });
  } catch (err) {
    deps.logger.warn({ err, runtime_id: runtimeId }, 'commerce runtime could not start');
    await deleteRuntime(db, runtimeId);
    throw temporalUnavailable('The commerce runtime');
  }
  // A failed run has finished too: its stored state says how.
  const done = await within(handle.result().then(() => true, () => true), waitMs);
  if (!done) return { status: 'running', runtimeId };
  return { status: 'completed', runtime: await loadRuntime(db, runtimeId, apiCaller(caller.developerId)) };
}

import type { Db } from '../db/connect';
import { loadRuntime } from '../runtime/store';
import type { Artifact, Message, Task, TaskState } from './types';
import type { Caller } from '../tenancy';

export type Runtime = Awaited<ReturnType<typeof loadRuntime>>;

/** The A2A skill (agent card `skills[].id`) and the data-part operation that runs the commerce runtime. */
export const RUN_COMMERCE_RUNTIME = 'run_commerce_runtime';

/** What the gateway stores beside a run started over A2A (commerce_runtimes.request.a2a). */
export interface A2aOrigin {
  context_id: string;
  message_id: string;
}

/**
 * A runtime's A2A task state: `working` while the loop runs; `failed` when the loop reported a
 * failure (audit_status `failed:<reason>`) or the workflow ended without finishing the run;
 * otherwise `completed` (including `budget_exhausted:<budget>`, a normal end under the budget —
 * the artifact's runtime_trace says which).
 */
export function taskState(runtime: Runtime, workflowEnded = false): TaskState {
  const audit = runtime.runtime_trace.audit_status;
  if (audit.startsWith('failed')) return 'failed';
  if (audit === 'running' || !runtime.runtime_session.finished_at) return workflowEnded ? 'failed' : 'working';
  return 'completed';
}

function statusMessage(runtime: Runtime, state: TaskState, contextId: string): Message {
  const id = runtime.runtime_session.runtime_id;
  const text =
    state === 'working'
      ? `Commerce runtime ${id} is running (stage ${runtime.runtime_session.stage}); poll tasks/get with id ${id}.`
      : `Commerce runtime ${id} ${state === 'failed' ? 'failed' : 'finished'}: stage ${runtime.runtime_session.stage}, audit ${runtime.runtime_trace.audit_status}.`;
  return { kind: 'message', messageId: `${id}-status-${state}`, role: 'agent', parts: [{ kind: 'text', text }], taskId: id, contextId };
}

/** A run as an A2A Task: id = runtime id; one artifact whose data part is `{runtime}` (the same object GET /v1/commerce-runtime/{id} returns). */
export function runtimeTask(runtime: Runtime, contextId: string, opts: { workflowEnded?: boolean } = {}): Task {
  const id = runtime.runtime_session.runtime_id;
  const state = taskState(runtime, opts.workflowEnded);
  const artifact: Artifact = {
    artifactId: `${id}-runtime`,
    name: 'commerce_runtime',
    description: 'The commerce runtime with its linked intent, proposal, match session and match token.',
    parts: [{ kind: 'data', data: { runtime } }],
  };
  return {
    kind: 'task',
    id,
    contextId,
    status: {
      state,
      timestamp: runtime.runtime_session.finished_at ?? new Date().toISOString(),
      message: statusMessage(runtime, state, contextId),
    },
    artifacts: [artifact],
    metadata: { skill: RUN_COMMERCE_RUNTIME, status_url: `/v1/commerce-runtime/${id}` },
  };
}

export async function loadRuntimeTask(db: Db, runtimeId: string, contextId: string, caller: Caller): Promise<Task> {
  return runtimeTask(await loadRuntime(db, runtimeId, caller), contextId);
}

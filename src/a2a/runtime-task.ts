import type { loadRuntime } from '../runtime/store';
import type { Artifact, Message, Task, TaskState } from './types';

export type Runtime = Awaited<ReturnType<typeof loadRuntime>>;

/** The A2A skill (agent card `skills[].id`) and the data-part operation that runs the commerce runtime. */
export const RUN_COMMERCE_RUNTIME = 'run_commerce_runtime';

/**
 * How much a task carries (docs/A2A.md, "Compact by default"): `summary` (default) the members an
 * agent acts on; `full` the documents GET /v1/commerce-runtime/{id} and GET /v1/agentic-checkout/{id}
 * return. Asked with `metadata.detail: "full"` on the message or the request.
 */
export type Detail = 'summary' | 'full';

/** What the gateway stores beside a run started over A2A (commerce_runtimes.request.a2a). */
export interface A2aOrigin {
  context_id: string;
  message_id: string;
}

/**
 * A runtime's A2A task state as the loop leaves it: `working` while it runs; `failed` when it
 * reported a failure (audit_status `failed:<reason>`) or the workflow ended without finishing the
 * run; otherwise `completed`, which the journey (src/a2a/journey.ts) refines from what the run found
 * (`input-required` while a found offer waits for the buyer).
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
      ? `Searching: commerce runtime ${id} is at stage ${runtime.runtime_session.stage}; poll GetTask with id ${id}.`
      : state === 'failed'
        ? `The search failed: commerce runtime ${id} ended at stage ${runtime.runtime_session.stage} (audit ${runtime.runtime_trace.audit_status}). Send a new message to try again.`
        : `Commerce runtime ${id} ended at stage ${runtime.runtime_session.stage} (audit ${runtime.runtime_trace.audit_status}).`;
  return { kind: 'message', messageId: `${id}-status-${state}`, role: 'agent', parts: [{ kind: 'text', text }], taskId: id, contextId };
}

/**
 * The runtime with the members an agent acts on, in the shape of the full document (a projection:
 * the same names, fewer of them): what was asked, what was chosen, the token that buys it.
 */
export function compactRuntime(runtime: Runtime) {
  const { intent, proposal: p, match_token: t } = runtime;
  return {
    runtime_session: {
      runtime_id: runtime.runtime_session.runtime_id,
      stage: runtime.runtime_session.stage,
      started_at: runtime.runtime_session.started_at,
      finished_at: runtime.runtime_session.finished_at,
    },
    intent: intent
      ? {
          intent_id: intent.intent_id,
          raw_query: intent.raw_query,
          intent_tags: intent.intent_tags,
          budget_range: intent.budget_range,
          region: intent.region,
        }
      : null,
    proposal: p
      ? {
          proposal_id: p.proposal_id,
          merchant_agent_id: p.merchant_agent_id,
          product_id: p.product_id,
          offer_title: p.offer_title,
          price: p.price,
          currency: p.currency,
          inventory_status: p.inventory_status,
          shipping_commitment: p.shipping_commitment,
        }
      : null,
    match_session: runtime.match_session ? { match_session_id: runtime.match_session.match_session_id } : null,
    match_token: t
      ? {
          match_token_id: t.match_token_id,
          proposal_id: t.proposal_id,
          acceptance_state: t.acceptance_state,
          amount: t.amount,
          currency: t.currency,
          expires_at: t.expires_at,
        }
      : null,
    runtime_trace: { audit_status: runtime.runtime_trace.audit_status },
  };
}

/**
 * A run as an A2A Task: id = runtime id; one artifact whose data part is `{runtime}`: compact by
 * default, the object GET /v1/commerce-runtime/{id} returns with detail `full`.
 */
export function runtimeTask(runtime: Runtime, contextId: string, opts: { workflowEnded?: boolean; detail?: Detail } = {}): Task {
  const id = runtime.runtime_session.runtime_id;
  const state = taskState(runtime, opts.workflowEnded);
  const full = opts.detail === 'full';
  const artifact: Artifact = {
    artifactId: `${id}-runtime`,
    name: 'commerce_runtime',
    description: full
      ? 'The commerce runtime with its linked intent, proposal, match session and match token (as GET /v1/commerce-runtime/{id}).'
      : 'The commerce runtime, compact: what was asked, the chosen proposal and its match token (metadata.detail "full" for the whole document).',
    parts: [{ kind: 'data', data: { runtime: full ? runtime : compactRuntime(runtime) } }],
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

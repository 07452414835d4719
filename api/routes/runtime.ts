import * as R from '../../src/schemas/runtime';
import { loadRuntime } from '../../src/runtime/store';
import { DEFAULT_WAIT_S, MAX_WAIT_S, startRuntime } from '../../src/runtime/client';
import { preferredWaitMs } from '../prefer-wait';
import { auth, linkTo, type RouteRegistry } from './registry';
import { intentLinks } from './intents';
import { matchSessionLinks, matchTokenLinks } from './match';
import { callerOf } from '../caller';
import { requestResourceId } from '../middleware/idempotency';

const TAG = 'Commerce runtime';
const getRuntime = (id: string) => linkTo('get', '/v1/commerce-runtime/{runtimeId}', { parameters: { 'path.runtimeId': id } });

export function runtimeRoutes(r: RouteRegistry): void {
  r.add({
    method: 'post',
    path: '/v1/commerce-runtime',
    tag: TAG,
    summary: 'Run the commerce runtime',
    description:
      'Runs an auditable agent loop (docs/RUNTIME.md): resolve the intent, query the subscribed merchant agents (the catalog answers when none does), rank the proposals, mint the match token and, when the budget does not require the user to confirm, authorize payment. Every iteration is an AgentStep; commerce_budget bounds the loop. The caller waits up to 20 s (`Prefer: wait=N`, 0..60); past it the answer is 202 with the status URL. Beyond what the schema states: intent.budget_range.min must not exceed its max (400 invalid_payload).',
    auth: auth.apiKey('runtime'),
    body: R.RuntimeCreateBody,
    // The document says the body (and its intent) is required; an absent one is 400 missing_intent.
    bodyRequired: true,
    missingFields: ['intent'],
    missingCode: 'missing_intent',
    responses: {
      201: {
        description: 'The finished runtime with its linked intent, proposal, match session and match token.',
        schema: R.RuntimeEnvelope,
        links: {
          GetRuntime: getRuntime('$response.body#/runtime/runtime_session/runtime_id'),
          ...intentLinks('$response.body#/runtime/intent/intent_id'),
          ...matchSessionLinks('$response.body#/runtime/match_session/match_session_id'),
          ...matchTokenLinks('$response.body#/runtime/match_token'),
        },
      },
      202: {
        description: 'Still running; poll status_url (also in Location).',
        schema: R.RuntimeAccepted,
        links: { GetRuntime: getRuntime('$response.body#/runtime_id') },
      },
    },
    errors: [[503, 'temporal_unavailable', 'Temporal is not reachable.']],
    handler: async (ctx, { body }) => {
      const out = await startRuntime(
        ctx.deps,
        body,
        { developerId: ctx.state.apiKey?.developerId, keyId: ctx.state.apiKey?.keyId },
        preferredWaitMs(ctx.get('prefer'), { defaultS: DEFAULT_WAIT_S, maxS: MAX_WAIT_S }),
        {},
        // Fixed by the Idempotency-Key claim: a retry after a crash continues the same run.
        { runtimeId: requestResourceId(ctx, 'rt') },
      );
      if (out.status === 'completed') return { status: 201, body: { runtime: out.runtime } };
      const statusUrl = `/v1/commerce-runtime/${out.runtimeId}`;
      // No worker polls: the run waits for one; the caller polls later rather than at once.
      return {
        status: 202,
        headers: { location: statusUrl, ...(out.noWorker ? { 'retry-after': '15' } : {}) },
        body: { runtime_id: out.runtimeId, status: 'running', status_url: statusUrl },
      };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/commerce-runtime/{runtimeId}',
    tag: TAG,
    summary: 'Get a commerce runtime',
    description: 'The runtime as stored: while it runs, the steps so far (runtime_trace.audit_status `running`); then the final state.',
    auth: auth.apiKey('runtime'),
    params: R.RuntimeIdParams,
    notFoundCode: 'runtime_not_found',
    responses: { 200: { description: 'The runtime.', schema: R.RuntimeEnvelope } },
    errors: [[404, 'runtime_not_found', 'No runtime with this id.']],
    handler: async (ctx, { params }) => ({ body: { runtime: await loadRuntime(ctx.deps.db, params.runtimeId, callerOf(ctx)) } }),
  });
}

import * as S from '../../src/schemas/agents';
import {
  agentNotFound,
  agentView,
  checkAgentToken,
  deactivateAgent,
  getAgent,
  heartbeatAgent,
  importAgentCard,
  listAgents,
  registerAgent,
  type AgentRegistration,
} from '../../src/registry/agents';
import type { AppContext } from '../context';
import { requireRegistrationToken } from '../middleware/auth';
import { registryDeps } from './merchants';
import { keyedRequestId } from '../middleware/idempotency';
import { auth, type ErrorRow, type RouteRegistry } from './registry';

const TAG = 'Commerce agent registry';

const notFound: ErrorRow = [404, 'agent_not_found', 'No commerce agent with this id.'];
const updateTokenErrors: ErrorRow[] = [
  [401, 'agent_token_required', 'Updating an existing agent needs its X-Agent-Token.'],
  [403, 'invalid_registration_token', 'Invalid registration token.'],
];
const invalidEndpoint: ErrorRow = [
  400,
  'invalid_endpoint',
  'The endpoint is not https or resolves to a private, loopback or link-local address.',
];

const agentToken = requireRegistrationToken({
  header: 'x-agent-token',
  unknownPrincipal: agentNotFound,
  verify: async (ctx, token) => ({
    principalId: ctx.params.agentId!,
    result: await checkAgentToken(ctx.deps.db, ctx.params.agentId!, token),
  }),
});
const lifecycleAuth = auth.apiKeyAnd('registry', 'AgentToken', agentToken, [
  [401, 'agent_token_required', 'X-Agent-Token required.'],
  [403, 'invalid_registration_token', 'Invalid registration token.'],
  notFound,
]);

function registered(reg: AgentRegistration) {
  return {
    status: reg.created ? 201 : 200,
    body: {
      status: reg.created ? 'registered' : 'updated',
      created: reg.created,
      agent_id: reg.agent.agent_id,
      registration_token: reg.registrationToken,
      agent: agentView(reg.agent),
    },
  };
}

const caller = (ctx: AppContext) => ({
  presentedToken: ctx.get('x-agent-token').trim() || undefined,
  keyId: ctx.state.apiKey?.keyId,
  createdByRequest: keyedRequestId(ctx),
});

export function agentRoutes(r: RouteRegistry): void {
  r.add({
    method: 'post',
    path: '/v1/agents/register',
    tag: TAG,
    summary: 'Register or update a commerce agent',
    description:
      "agent_id, agent_type and endpoint are required. capability_profile is grouped by agent kind and validated for the agent's own kind. 201 when created; an existing agent_id is updated (200) with its X-Agent-Token. Beyond what the schema states: endpoint must be https and resolve to public addresses only, a DNS answer (400 invalid_endpoint).",
    auth: auth.apiKey('registry'),
    body: S.AgentRegisterBody,
    bodyRequired: true,
    missingFields: ['agent_id', 'agent_type', 'endpoint'],
    responses: {
      201: { description: 'Created.', schema: S.AgentRegisterResponse },
      200: { description: 'Existing registration updated.', schema: S.AgentRegisterResponse },
    },
    errors: [invalidEndpoint, ...updateTokenErrors],
    handler: async (ctx, { body }) => registered(await registerAgent(registryDeps(ctx), body, caller(ctx))),
  });

  r.add({
    method: 'post',
    path: '/v1/agents/import-card',
    tag: TAG,
    summary: 'Import an A2A Agent Card',
    description:
      'Send exactly one of agent_card (inline) or agent_card_url (fetched over https: 5 s, 256 KiB, 3 redirects, every hop checked). v0.3 and v1.0 cards are read; skills, interfaces, security schemes and extensions (AP2 roles included) are mapped into capability_profile.a2a and the agent is registered. Beyond what the schema states: the card must have the A2A Agent Card shape (400 invalid_agent_card) and its endpoint must resolve to public addresses only (400 invalid_endpoint).',
    auth: auth.apiKey('registry'),
    body: S.AgentImportCardBody,
    bodyRequired: true,
    responses: {
      201: { description: 'Imported and registered.', schema: S.AgentRegisterResponse },
      200: { description: 'Existing registration updated from the card.', schema: S.AgentRegisterResponse },
    },
    errors: [
      [400, 'missing_fields', 'Neither agent_card nor agent_card_url was sent.'],
      [400, 'invalid_agent_card', 'The card does not have the A2A Agent Card shape; `fields` names the member.'],
      invalidEndpoint,
      ...updateTokenErrors,
      [
        502,
        'agent_card_fetch_failed',
        'The card URL could not be fetched: unreachable, timeout, non-2xx, too large, too many redirects or not JSON.',
      ],
    ],
    handler: async (ctx, { body }) =>
      registered(
        await importAgentCard({ ...registryDeps(ctx), cardFetchTimeoutMs: ctx.deps.config.AGENT_CARD_FETCH_TIMEOUT_MS }, body, caller(ctx)),
      ),
  });

  r.add({
    method: 'get',
    path: '/v1/agents',
    tag: TAG,
    summary: 'List commerce agents',
    auth: auth.apiKey('registry'),
    query: S.AgentListQuery,
    responses: { 200: { description: 'Agents, oldest registration first.', schema: S.AgentList } },
    handler: async (ctx, { query }) => {
      const agents = await listAgents(ctx.deps.db, query);
      return { body: { count: agents.length, agents: agents.map(agentView) } };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/agents/{agentId}',
    tag: TAG,
    summary: 'Fetch a commerce agent',
    auth: auth.apiKey('registry'),
    params: S.AgentIdParams,
    notFoundCode: 'agent_not_found',
    responses: { 200: { description: 'The agent record.', schema: S.AgentEnvelope } },
    errors: [notFound],
    handler: async (ctx, { params }) => ({ body: { agent: agentView(await getAgent(ctx.deps.db, params.agentId)) } }),
  });

  r.add({
    method: 'post',
    path: '/v1/agents/{agentId}/heartbeat',
    tag: TAG,
    summary: 'Commerce agent heartbeat',
    description: 'Refreshes last_seen_at.',
    auth: lifecycleAuth,
    params: S.AgentIdParams,
    notFoundCode: 'agent_not_found',
    responses: { 200: { description: 'The refreshed record.', schema: S.AgentStatusEnvelope } },
    handler: async (ctx, { params }) => ({ body: { status: 'ok', agent: agentView(await heartbeatAgent(ctx.deps.db, params.agentId)) } }),
  });

  r.add({
    method: 'post',
    path: '/v1/agents/{agentId}/deactivate',
    tag: TAG,
    summary: 'Deactivate a commerce agent',
    description: 'Sets status `inactive` and deactivated_at; registering again reactivates.',
    auth: lifecycleAuth,
    params: S.AgentIdParams,
    notFoundCode: 'agent_not_found',
    responses: { 200: { description: 'The deactivated record.', schema: S.AgentStatusEnvelope } },
    handler: async (ctx, { params }) => ({
      body: { status: 'inactive', agent: agentView(await deactivateAgent(ctx.deps.db, params.agentId)) },
    }),
  });
}

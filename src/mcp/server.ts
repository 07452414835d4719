import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config';
import type { Db } from '../db/connect';
import { isDatabaseUnavailable } from '../db/connect';
import type { Logger } from '../logger';
import type { SigningKeys } from '../crypto/signing-keys';
import type { TemporalHandle } from '../temporal/client';
import type { CardFactsCache } from '../catalog/cards';
import type { CatalogSnapshotCache } from '../recommend/catalog-snapshot';
import type { RecommendationRecorder } from '../recommend/record';
import { AppError } from '../errors';
import { hasScope, type ApiKeyPrincipal } from '../console/api-keys';
import type { ApiKeyScope } from '../schemas/console';
import { RecommendQuery } from '../schemas/recommend';
import { IntentCreateBody } from '../schemas/intents';
import { RuntimeCreateBody } from '../schemas/runtime';
import { AcceptBody, MatchRenderQuery, MatchSessionParams } from '../schemas/match';
import { recommend, recommendDeps } from '../recommend/recommend';
import { intentView } from '../matching/intents';
import { createIntentAndStartSurge } from '../dispatch/surge-start';
import { renderMatchSessionBody, type FrozenTopCache } from '../matching/session-render';
import { acceptMatch, matchTokenView } from '../matching/match-tokens';
import { DEFAULT_WAIT_S, MAX_WAIT_S, startRuntime } from '../runtime/start';
import { apiCaller } from '../tenancy';

/**
 * The gateway's operations as MCP tools (docs/MCP.md). One server is built per HTTP request for the
 * API key that request authenticated (stateless Streamable HTTP), so every tool runs as that key and
 * checks that key's scope, exactly like the REST route it mirrors. Each tool calls the same domain
 * function as its route and returns the same JSON body, as text content and as structuredContent.
 */

/** What the tools need from the API process (AppDeps satisfies it). */
export interface McpDeps {
  config: Config;
  db: Db;
  temporal: TemporalHandle | null;
  signingKeys: SigningKeys;
  cardFacts?: CardFactsCache;
  frozenTops: FrozenTopCache;
  catalogSnapshots: CatalogSnapshotCache;
  recommendations: RecommendationRecorder;
  logger: Logger;
}

export interface McpCaller {
  principal: ApiKeyPrincipal;
  /** The HTTP request id, recorded on what the tools write (e.g. the accept trace). */
  requestId: string;
}

export const MCP_TOOL_SCOPES = {
  recommend: 'recommend',
  create_intent: 'intents',
  run_commerce_runtime: 'runtime',
  get_match_session: 'match',
  accept_match: 'match',
} as const satisfies Record<string, ApiKeyScope>;

export type McpToolName = keyof typeof MCP_TOOL_SCOPES;

/*
 * Tool input schemas are the routes' own zod schemas, rebuilt as plain objects: a schema registered
 * with an OpenAPI component id would become a root `$ref`, and MCP requires `type: "object"` at the root.
 */
const IntentToolInput = z.object(IntentCreateBody.shape);

const RuntimeToolInput = z.object({
  ...RuntimeCreateBody.shape,
  wait_s: z
    .number()
    .min(0)
    .max(MAX_WAIT_S)
    .optional()
    .meta({ description: `How long to wait for the loop to finish, in seconds (default ${DEFAULT_WAIT_S}, at most ${MAX_WAIT_S}). Past it the result is the runtime id and status "running".` }),
});

const MatchSessionInput = z.object({
  match_session_id: MatchSessionParams.shape.matchSessionId,
  limit: MatchRenderQuery.shape.limit.meta({ description: 'How many ranked proposals (and cards) to render, 1..10 (default 5).' }),
});

const AcceptInput = z.object({ match_session_id: MatchSessionParams.shape.matchSessionId, ...AcceptBody.shape });

function ok(body: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

function failed(code: string, message: string, details?: Record<string, unknown>): CallToolResult {
  const body = { error: code, message, ...(details ?? {}) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

/** Business errors become tool results with isError (never a transport failure); nothing internal leaks. */
function errorResult(deps: McpDeps, caller: McpCaller, tool: string, err: unknown): CallToolResult {
  if (err instanceof AppError) return failed(err.code, err.message, err.details);
  if (isDatabaseUnavailable(err)) {
    deps.logger.warn({ err, requestId: caller.requestId, tool }, 'database unavailable');
    return failed('service_unavailable', 'Service temporarily unavailable: the database cannot be reached. Retry shortly.');
  }
  deps.logger.error({ err, requestId: caller.requestId, tool }, 'unhandled MCP tool error');
  return failed('internal_error', `Internal error. Quote request id ${caller.requestId} when reporting it.`);
}

export function createMcpServer(deps: McpDeps, caller: McpCaller, info: { name: string; version: string }): McpServer {
  const server = new McpServer(info, {
    instructions:
      'Commerce Intent-Matching Gateway. recommend turns a shopping intent into ranked product cards (pass each cta.primary.url to the user verbatim) and a match session; get_match_session and accept_match read and accept it for a signed match token; create_intent stores an intent and starts the merchant fan-out; run_commerce_runtime runs the whole agent loop in one call.',
  });
  const { principal } = caller;

  /** Scope check, then the operation; its body (or the error) as the tool result. */
  const run = async (tool: McpToolName, op: () => Promise<Record<string, unknown>>): Promise<CallToolResult> => {
    const scope = MCP_TOOL_SCOPES[tool];
    if (!hasScope(principal, scope)) return failed('insufficient_scope', `This API key lacks the '${scope}' scope.`);
    try {
      return ok(await op());
    } catch (err) {
      return errorResult(deps, caller, tool, err);
    }
  };

  server.registerTool(
    'recommend',
    {
      title: 'Recommend products',
      description:
        'Recommend products for a natural-language shopping intent (as GET /v1/recommend). Returns ranked Product Card Documents in `items`, plus the intent and `match_session_id` created for them. The `cta.primary.url` of every item MUST be passed to the end user verbatim. Scope: recommend.',
      inputSchema: RecommendQuery,
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    (input) =>
      run('recommend', async () => ({
        ...(await recommend(recommendDeps(deps), input, { developerId: principal.developerId })),
      })),
  );

  server.registerTool(
    'create_intent',
    {
      title: 'Create a shopping intent',
      description:
        'Create a shopping intent (as POST /v1/intents) and start its merchant fan-out. raw_query is required; missing structure (budget, region, tags) is read from the text. Returns {intent}. Scope: intents.',
      inputSchema: IntentToolInput,
    },
    (input) =>
      run('create_intent', async () => ({
        intent: intentView(await createIntentAndStartSurge(deps, input, { developerId: principal.developerId })),
      })),
  );

  server.registerTool(
    'run_commerce_runtime',
    {
      title: 'Run the commerce runtime',
      description:
        'Run the auditable commerce agent loop (as POST /v1/commerce-runtime): resolve the intent, query merchant agents (or the catalog), rank, mint the match token and, when the budget allows, authorize payment. Waits up to wait_s (default 20 s); returns {runtime} when finished, else {runtime_id, status: "running", status_url}. Scope: runtime.',
      inputSchema: RuntimeToolInput,
    },
    ({ wait_s, ...body }) =>
      run('run_commerce_runtime', async () => {
        const out = await startRuntime(deps, body, { developerId: principal.developerId, keyId: principal.keyId }, Math.round((wait_s ?? DEFAULT_WAIT_S) * 1000));
        if (out.status === 'completed') return { runtime: out.runtime };
        return { runtime_id: out.runtimeId, status: 'running', status_url: `/v1/commerce-runtime/${out.runtimeId}` };
      }),
  );

  server.registerTool(
    'get_match_session',
    {
      title: 'Get a rendered match session',
      description:
        'The match session (as GET /v1/match/{id}): the session, its top `limit` ranked proposals, its match tokens and a Product Card Document per proposal. Scope: match.',
      inputSchema: MatchSessionInput,
      annotations: { readOnlyHint: true },
    },
    ({ match_session_id, limit }) => run('get_match_session', () => renderMatchSessionBody(deps.db, match_session_id, limit, apiCaller(principal.developerId), deps.frozenTops)),
  );

  server.registerTool(
    'accept_match',
    {
      title: 'Accept a ranked proposal',
      description:
        'Accept a proposal of a match session for a signed match token (as POST /v1/match/{id}/accept): proposal_id (default: the best ranked) mints a token, match_token_id confirms an existing one; accepting the same proposal again returns the same token. Returns {match_token}. Scope: match.',
      inputSchema: AcceptInput,
    },
    ({ match_session_id, ...body }) =>
      run('accept_match', async () => {
        const token = await acceptMatch(
          { db: deps.db, signingKey: deps.signingKeys.matchToken, issuer: deps.config.publicBaseUrl, ttlSeconds: deps.config.MATCH_TOKEN_TTL_S },
          match_session_id,
          body,
          { requestId: caller.requestId, keyId: principal.keyId },
          apiCaller(principal.developerId),
        );
        return { match_token: matchTokenView(token, apiCaller(principal.developerId)) };
      }),
  );

  return server;
}

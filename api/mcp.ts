import type { Middleware } from 'koa';
import { describeBadInput, dropPrototypeKeys, findBadInput } from '../src/input-guard';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { authenticateApiKey } from '../src/console/api-keys';
import { createMcpServer } from '../src/mcp/server';
import type { AppContext, AppState } from './context';
import { bearerToken } from './middleware/bearer';
import { CONTRACT_VERSION } from './openapi';

/**
 * MCP over Streamable HTTP at /mcp (docs/MCP.md), as plain Koa middleware outside the OpenAPI route
 * registry. Stateless: every POST carries its own bearer API key, gets a fresh server and transport,
 * and is answered with a single JSON body (no session id, no SSE). GET (the server-to-client SSE
 * stream) and DELETE (session teardown) have nothing to serve without sessions: 405, as the
 * transport spec allows. Runs after errorEnvelope, rateLimit and bodyParser, so it is rate-limited
 * per key like every route, gets the already-parsed JSON body, and renders 401s in the usual envelope.
 */
export const MCP_PATH = '/mcp';

/** RFC 9728 protected-resource metadata, at the root and at the path-suffixed location clients try first. */
export const PROTECTED_RESOURCE_PATHS = ['/.well-known/oauth-protected-resource', `/.well-known/oauth-protected-resource${MCP_PATH}`];

export const INVALID_API_KEY_MESSAGE =
  'invalid API key: send Authorization: Bearer <API_KEY> with an API key from the developer console (POST /v1/developers/keys).';

/**
 * The protected-resource metadata of /mcp. It names no authorization server (`authorization_servers` is absent) on purpose: the gateway
 * takes API keys, not OAuth tokens, so there is no OAuth flow a client could start; bearer in the
 * header is the one method. A client that reads it learns where the key goes instead of being sent
 * to register with an authorization server that does not exist.
 */
export function protectedResourceMetadata(publicBaseUrl: string) {
  return {
    resource: `${publicBaseUrl}${MCP_PATH}`,
    resource_name: 'Commerce Intent-Matching Gateway (MCP)',
    bearer_methods_supported: ['header'],
    resource_documentation: `${publicBaseUrl}/openapi.json`,
    // Not a registered RFC 9728 member: what a person reading it needs to know.
    authentication:
      'API key: Authorization: Bearer <API_KEY>, a key created in the developer console (POST /v1/developers/keys). No OAuth.',
  };
}

/**
 * A bad or missing key, in a shape every MCP client shows: a JSON-RPC error (the Python SDK surfaces
 * a non-2xx JSON body only when it is one; the TypeScript SDK and the Inspector CLI quote the body),
 * its message "invalid API key …" also at the top level with the code in `error.data.error`, and a
 * WWW-Authenticate header with RFC 6750's invalid_token and the metadata document's address.
 */
function unauthorized(ctx: AppContext): void {
  const body = (ctx.request as { body?: unknown }).body;
  const id =
    body && typeof body === 'object' && !Array.isArray(body) && 'id' in body && (typeof body.id === 'string' || typeof body.id === 'number')
      ? body.id
      : null;
  ctx.status = 401;
  ctx.set(
    'WWW-Authenticate',
    `Bearer error="invalid_token", error_description="invalid API key", resource_metadata="${ctx.deps.config.publicBaseUrl}${PROTECTED_RESOURCE_PATHS[1]}"`,
  );
  ctx.body = {
    jsonrpc: '2.0',
    id,
    error: { code: -32001, message: INVALID_API_KEY_MESSAGE, data: { error: 'invalid_api_key' } },
    message: INVALID_API_KEY_MESSAGE,
  };
}

export const mcpEndpoint: Middleware<AppState> = async (c, next) => {
  const ctx = c as AppContext;
  if (PROTECTED_RESOURCE_PATHS.includes(c.path) && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = protectedResourceMetadata(ctx.deps.config.publicBaseUrl);
    return;
  }
  if (c.path !== MCP_PATH) return next();
  if (ctx.method !== 'POST') {
    ctx.status = 405;
    ctx.set('Allow', 'POST');
    ctx.body = {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC with POST.' },
      id: null,
    };
    return;
  }
  const token = bearerToken(ctx);
  const principal = token ? await authenticateApiKey(ctx.deps.db, token) : null;
  if (!principal) return unauthorized(ctx);
  // Logged by requestLog like any API-key call.
  ctx.state.apiKey = principal;

  const server = createMcpServer(
    ctx.deps,
    { principal, requestId: ctx.state.requestId },
    { name: 'commerce-intent-matching-gateway', version: CONTRACT_VERSION },
  );
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const url = new URL(ctx.originalUrl, `${ctx.protocol}://${ctx.host || 'localhost'}`);
    const headers = new Headers();
    for (const [k, v] of Object.entries(ctx.headers)) {
      if (typeof v === 'string') headers.set(k, v);
      else if (Array.isArray(v)) for (const one of v) headers.append(k, one);
    }
    const request = new Request(url, { method: 'POST', headers });
    // bodyParser has already read the stream; a missing or non-JSON body is the transport's own JSON-RPC error.
    const parsedBody = (ctx.request as { body?: unknown }).body;
    // The same guard as every REST route: no NUL or lone surrogate reaches a tool (jsonBody already bounds depth).
    const bad = findBadInput(parsedBody);
    if (bad) {
      const message = describeBadInput(bad);
      const id =
        parsedBody &&
        typeof parsedBody === 'object' &&
        'id' in parsedBody &&
        (typeof parsedBody.id === 'string' || typeof parsedBody.id === 'number')
          ? parsedBody.id
          : null;
      ctx.status = 400;
      ctx.body = { jsonrpc: '2.0', id, error: { code: -32602, message, data: { error: 'invalid_params', message } }, message };
      return;
    }
    // Members that name a prototype never reach a tool (src/input-guard.ts dropPrototypeKeys).
    dropPrototypeKeys(parsedBody);
    const response = await transport.handleRequest(request, { parsedBody });
    ctx.status = response.status;
    response.headers.forEach((value, key) => {
      if (key !== 'content-length') ctx.set(key, value);
    });
    const text = await response.text();
    if (text) {
      ctx.body = text;
      ctx.type = response.headers.get('content-type') ?? 'application/json';
    } else {
      ctx.body = null;
      ctx.status = response.status;
    }
  } finally {
    await transport.close().catch(() => undefined);
    await server.close().catch(() => undefined);
  }
};

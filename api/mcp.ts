import type { Middleware } from 'koa';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AppError } from '../src/errors';
import { authenticateApiKey } from '../src/console/api-keys';
import { createMcpServer } from '../src/mcp/server';
import type { AppContext, AppState } from './context';
import { bearerToken } from './middleware/auth';
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

export const mcpEndpoint: Middleware<AppState> = async (c, next) => {
  if (c.path !== MCP_PATH) return next();
  const ctx = c as AppContext;
  if (ctx.method !== 'POST') {
    ctx.status = 405;
    ctx.set('Allow', 'POST');
    ctx.body = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC with POST.' }, id: null };
    return;
  }
  const token = bearerToken(ctx);
  const principal = token ? await authenticateApiKey(ctx.deps.db, token) : null;
  if (!principal) {
    ctx.set('WWW-Authenticate', 'Bearer');
    throw new AppError(401, 'invalid_api_key', 'A valid API key is required: Authorization: Bearer <API_KEY>.');
  }
  // Logged by requestLog like any API-key call.
  ctx.state.apiKey = principal;

  const server = createMcpServer(ctx.deps, { principal, requestId: ctx.state.requestId }, { name: 'commerce-intent-matching-gateway', version: CONTRACT_VERSION });
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

import Koa from 'koa';
import { tracing } from '../src/tracing';
import { traceRequests } from './middleware/tracing';
import Router from '@koa/router';
import type { AppDeps, AppState } from './context';
import { errorEnvelope } from './middleware/errors';
import { requestId } from './middleware/request-id';
import { requestLog } from './middleware/request-log';
import { rateLimit } from './middleware/rate-limit';
import { metrics } from './middleware/metrics';
import { observeDbPool } from '../src/metrics/api';
import { dbPool } from '../src/db/connect';
import { jsonBody } from './middleware/body';
import { methodNotAllowed, RouteRegistry } from './routes/registry';
import { systemRoutes } from './routes/system';
import { protocolRoutes } from './routes/protocols';
import { ucpBusinessRoutes } from './routes/ucp-business';
import { developerRoutes } from './routes/developers';
import { merchantRoutes } from './routes/merchants';
import { agentRoutes } from './routes/agents';
import { mandateRoutes } from './routes/mandates';
import { intentRoutes } from './routes/intents';
import { matchRoutes } from './routes/match';
import { dispatchRoutes } from './routes/dispatch';
import { cardRoutes } from './routes/cards';
import { proofRoutes } from './routes/proof';
import { recommendRoutes } from './routes/recommend';
import { checkoutRoutes } from './routes/checkout';
import { runtimeRoutes } from './routes/runtime';
import { experienceRoutes } from './routes/experience';
import { merchantOpsRoutes } from './routes/merchant-ops';
import { feedRoutes } from './routes/feeds';
import { reportRoutes } from './routes/reports';
import { reconciliationRoutes } from './routes/reconciliation';
import { mcpEndpoint } from './mcp';
import { a2aEndpoint } from './a2a';

/** Every route of the service, in one registry (the OpenAPI document is generated from it). */
export function buildRoutes(): RouteRegistry {
  const routes = new RouteRegistry();
  systemRoutes(routes);
  developerRoutes(routes);
  dispatchRoutes(routes);
  merchantRoutes(routes);
  agentRoutes(routes);
  intentRoutes(routes);
  matchRoutes(routes);
  recommendRoutes(routes);
  cardRoutes(routes);
  proofRoutes(routes);
  mandateRoutes(routes);
  checkoutRoutes(routes);
  runtimeRoutes(routes);
  experienceRoutes(routes);
  merchantOpsRoutes(routes);
  feedRoutes(routes);
  reportRoutes(routes);
  reconciliationRoutes(routes);
  protocolRoutes(routes);
  ucpBusinessRoutes(routes);
  return routes;
}

export function createApp(deps: AppDeps, opts: { extraRoutes?: (r: Router<AppState>) => void } = {}) {
  const app = new Koa<AppState>({ proxy: false });
  app.context.deps = deps;
  // Errors are rendered by errorEnvelope; Koa's default handler would only print them again.
  app.silent = true;

  const registry = buildRoutes();
  const router = new Router<AppState>();
  registry.mount(router);
  opts.extraRoutes?.(router);

  observeDbPool(dbPool(deps.db));
  // Outermost: serves GET /metrics (unlogged, unlimited) and times everything else.
  app.use(metrics(router));
  // Tracing off (the default) costs nothing: the middleware is not mounted.
  if (tracing()) app.use(traceRequests);
  app.use(requestId);
  app.use(requestLog);
  app.use(errorEnvelope);
  app.use(rateLimit);
  // A2A JSON-RPC (docs/A2A.md): its own middleware, which parses its own body so JSON errors answer as JSON-RPC.
  app.use(a2aEndpoint);
  app.use(jsonBody());
  // MCP (Streamable HTTP, docs/MCP.md): its own middleware, not an OpenAPI route of the registry.
  app.use(mcpEndpoint);
  app.use(router.routes());
  // Reached only when no route took the request: an unknown path is 404; a known path with another
  // method is 405 with the path's `Allow` (any method, declared or not: TRACE, QUERY, PROPFIND …);
  // OPTIONS answers 204 with that `Allow`.
  app.use(async (ctx) => {
    let allow = registry.allowedMethods(ctx.path);
    if (!allow.length) {
      // Routes mounted outside the registry (tests' extra routes) answer by the router's own layers.
      const methods = new Set(router.match(ctx.path, ctx.method).path.flatMap((layer) => layer.methods));
      if (methods.size) allow = [...methods, 'OPTIONS'].sort();
    }
    if (!allow.length) {
      ctx.status = 404;
      ctx.body = { error: 'not_found', message: `No route for ${ctx.method} ${ctx.path}.` };
      return;
    }
    ctx.set('Allow', allow.join(', '));
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    throw methodNotAllowed(ctx.method, ctx.path, allow);
  });
  return { app, router, registry };
}

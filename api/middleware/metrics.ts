import type { Middleware } from 'koa';
import type Router from '@koa/router';
import { apiRegistry, recordRequest } from '../../src/metrics/api';
import { METRICS_CONTENT_TYPE, scrapeAllowed } from '../../src/metrics/scrape';
import type { AppState } from '../context';

export const METRICS_PATH = '/metrics';

/**
 * The outermost middleware. `GET /metrics` is answered here, before request ids, request logs and
 * rate limits (a scraper is neither a caller to log nor one to limit); every other request is
 * counted and timed once its response is final, under its route template. A request answered
 * before routing (429, 413) has no matched route yet: its template is looked up in the router then.
 */
export const metrics =
  (router: Router<AppState>): Middleware<AppState> =>
  async (ctx, next) => {
    if (ctx.path === METRICS_PATH) {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
        ctx.status = 405;
        ctx.set('Allow', 'GET, HEAD');
        ctx.body = { error: 'method_not_allowed', message: `${ctx.method} is not allowed on ${METRICS_PATH}.` };
        return;
      }
      if (!scrapeAllowed(ctx.get('authorization') || undefined, ctx.deps.config.METRICS_TOKEN)) {
        ctx.status = 401;
        ctx.set('WWW-Authenticate', 'Bearer');
        ctx.body = { error: 'unauthorized', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.' };
        return;
      }
      ctx.type = METRICS_CONTENT_TYPE;
      ctx.body = await apiRegistry.metrics();
      return;
    }
    const started = performance.now();
    try {
      await next();
    } finally {
      const body = ctx.body as { error?: unknown } | null | undefined;
      const code = ctx.status >= 400 && body && typeof body === 'object' && !Buffer.isBuffer(body) ? body.error : undefined;
      let route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      if (route === undefined && ctx.status !== 404)
        route = router.match(ctx.path, ctx.method).pathAndMethod.find((l) => l.methods.length)?.path;
      recordRequest(ctx.method, route, ctx.path, ctx.status, (performance.now() - started) / 1000, code);
    }
  };

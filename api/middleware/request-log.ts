import type { Middleware } from 'koa';
import type { AppState } from '../context';

/** Logs every API-key request (buffered, written off the request path). Sits outside error rendering. */
export const requestLog: Middleware<AppState> = async (ctx, next) => {
  try {
    await next();
  } finally {
    const key = ctx.state.apiKey;
    if (key) {
      // The route's own `?channel=` where it declares one (elsewhere the registry refuses it), else X-Channel.
      const channel = (typeof ctx.query.channel === 'string' ? ctx.query.channel : ctx.get('x-channel')) || null;
      ctx.deps.requestLogs.push({
        request_id: ctx.state.requestId,
        key_id: key.keyId,
        developer_id: key.developerId,
        channel: channel ? channel.slice(0, 64) : null,
        method: ctx.method,
        path: ctx.path.slice(0, 512),
        status_code: ctx.status,
        duration_ms: Math.round(performance.now() - ctx.state.startedAt),
        created_at: new Date(),
      });
    }
  }
};

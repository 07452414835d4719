import type { Middleware } from 'koa';
import { AppError } from '../../src/errors';
import { databaseUnavailable } from '../../src/db/connect';
import type { AppContext, AppState } from '../context';

/** Errors thrown by Koa's own parsers (co-body, http-errors) carry a status and a type. */
interface HttpishError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
  message?: string;
}

const CODES_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
};

/** Turns any thrown value into the `{error, message}` envelope. Never leaks a stack or a 500 detail. */
export function renderError(ctx: AppContext, err: unknown): void {
  if (err instanceof AppError) {
    ctx.status = err.status;
    for (const [k, v] of Object.entries(err.headers ?? {})) ctx.set(k, v);
    ctx.body = { error: err.code, message: err.message, ...(err.details ?? {}) };
    return;
  }
  const e = (err ?? {}) as HttpishError;
  const status = e.status ?? e.statusCode;
  if (status && status >= 400 && status < 500) {
    ctx.status = status;
    if (e.type === 'entity.parse.failed' || (status === 400 && err instanceof SyntaxError)) {
      ctx.body = { error: 'invalid_json', message: 'The request body is not valid JSON.' };
    } else if (status === 413) {
      ctx.body = { error: 'payload_too_large', message: 'The request body exceeds the 1 MB limit.' };
    } else {
      ctx.body = { error: CODES_BY_STATUS[status] ?? 'bad_request', message: e.expose && e.message ? e.message : 'Bad request.' };
    }
    return;
  }
  const unavailable = databaseUnavailable(err);
  if (unavailable) {
    ctx.status = 503;
    ctx.set('Retry-After', String(unavailable.retryAfterS));
    ctx.body = { error: 'service_unavailable', message: unavailable.message };
    ctx.deps.logger.warn(
      { err, reason: unavailable.reason, requestId: ctx.state.requestId, path: ctx.path },
      `database ${unavailable.reason}`,
    );
    return;
  }
  ctx.status = 500;
  ctx.body = { error: 'internal_error', message: `Internal error. Quote request id ${ctx.state.requestId} when reporting it.` };
  ctx.deps.logger.error({ err, requestId: ctx.state.requestId, path: ctx.path }, 'unhandled error');
}

/** Paths that speak the Agentic Commerce Protocol, whose errors are ACP's flat objects. */
export const ACP_PATH_PREFIX = '/acp/';

/**
 * The gateway's `{error, message, fields?}` as ACP's flat error `{type, code, message, param?}`
 * (type `invalid_request` for a 4xx, `service_unavailable` / `processing_error` otherwise; `param` a
 * JSONPath to the first field named): a protocol's endpoints answer in the protocol's shape.
 */
export function acpErrorOf(status: number, body: { error?: unknown; message?: unknown; fields?: unknown }) {
  const first = Array.isArray(body.fields) && typeof body.fields[0] === 'string' ? body.fields[0] : undefined;
  return {
    type: status < 500 ? 'invalid_request' : status === 503 ? 'service_unavailable' : 'processing_error',
    code: String(body.error ?? 'error'),
    message: String(body.message ?? ''),
    ...(first ? { param: `$.${first}` } : {}),
  };
}

export const errorEnvelope: Middleware<AppState> = async (ctx, next) => {
  try {
    await inner(ctx, next);
  } finally {
    if (ctx.path.startsWith(ACP_PATH_PREFIX) && ctx.status >= 400 && ctx.body && typeof ctx.body === 'object' && 'error' in ctx.body) {
      ctx.body = acpErrorOf(ctx.status, ctx.body as Record<string, unknown>);
    }
  }
};

const inner: Middleware<AppState> = async (ctx, next) => {
  try {
    await next();
    if (ctx.body === undefined || ctx.body === null) {
      if (ctx.status === 404) {
        ctx.status = 404;
        ctx.body = { error: 'not_found', message: `No route for ${ctx.method} ${ctx.path}.` };
      } else if (ctx.status === 405) {
        ctx.body = {
          error: 'method_not_allowed',
          message: `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}.`,
        };
      }
    }
  } catch (err) {
    renderError(ctx as AppContext, err);
  }
};

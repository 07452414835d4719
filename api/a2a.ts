import type { Middleware } from 'koa';
import { describeBadInput, dropPrototypeKeys, findBadInput } from '../src/input-guard';
import { AppError } from '../src/errors';
import { databaseUnavailable } from '../src/db/connect';
import { DEFAULT_WAIT_S, MAX_WAIT_S } from '../src/runtime/client';
import { preferredWaitMs } from './prefer-wait';
import { dispatchA2a } from '../src/a2a/dispatch';
import { errorOut } from '../src/a2a/v1';
import { RPC, type JsonRpcError, type JsonRpcResponse } from '../src/a2a/types';
import type { AppContext, AppState } from './context';
import { requireApiKey } from './middleware/auth';
import { jsonBodyParser } from './middleware/body';

/**
 * The A2A JSON-RPC endpoint (docs/A2A.md) named by the agent card's `url`. It is not a REST
 * operation, so it is mounted beside the router rather than in the OpenAPI route registry.
 *
 *   POST /a2a   Authorization: Bearer <API_KEY with scope runtime>
 *
 * Transport answers: 401/403 (with a JSON-RPC error body) without a valid key, 405 for other
 * methods, 413/415 for bodies the gateway will not read; every JSON-RPC outcome, including errors,
 * is HTTP 200.
 */
export const A2A_PATH = '/a2a';

const parseJson = jsonBodyParser();
const requireRuntimeKey = requireApiKey('runtime');
const noop = async () => {};

function reply(ctx: AppContext, status: number, body: JsonRpcResponse, headers: Record<string, string> = {}): void {
  ctx.status = status;
  for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
  ctx.type = 'application/json';
  ctx.body = body;
}

/** A client that announces A2A 1.x (`A2A-Version`, sent by the official 1.x SDKs) gets transport errors in the 1.0 shape too. */
const speaksV1 = (ctx: AppContext) => /^1(\.|$)/.test(ctx.get('a2a-version').trim());

/** The request's id once the body is parsed (JSON-RPC answers with it); null before. */
function requestId(ctx: AppContext): string | number | null {
  const body = (ctx.request as { body?: unknown }).body;
  const id = body && typeof body === 'object' && 'id' in body ? (body as { id?: unknown }).id : null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

const errorReply = (ctx: AppContext, status: number, error: JsonRpcError, headers?: Record<string, string>) =>
  reply(ctx, status, { jsonrpc: '2.0', id: requestId(ctx), error: speaksV1(ctx) ? errorOut(error) : error }, headers);

const envelope = (code: number, err: AppError): JsonRpcError => ({
  code,
  message: err.message,
  data: { error: err.code, message: err.message },
});

function hasBody(ctx: AppContext): boolean {
  return Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
}

export const a2aEndpoint: Middleware<AppState> = async (c, next) => {
  const ctx = c as AppContext;
  if (ctx.path !== A2A_PATH) return next();
  if (ctx.method !== 'POST') {
    const err = new AppError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${A2A_PATH}; A2A JSON-RPC calls are POSTed.`);
    return errorReply(ctx, 405, envelope(RPC.INVALID_REQUEST, err), { Allow: 'POST' });
  }

  try {
    await requireRuntimeKey(ctx, noop);
  } catch (err) {
    if (err instanceof AppError && (err.status === 401 || err.status === 403)) {
      return errorReply(ctx, err.status, envelope(RPC.INVALID_REQUEST, err), err.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {});
    }
    throw err;
  }

  if (hasBody(ctx) && !ctx.is('application/json', '+json')) {
    return errorReply(
      ctx,
      415,
      envelope(RPC.INVALID_REQUEST, new AppError(415, 'unsupported_media_type', 'Send the JSON-RPC request as application/json.')),
    );
  }
  try {
    await parseJson(ctx, noop);
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status === 413)
      return errorReply(
        ctx,
        413,
        envelope(RPC.INVALID_REQUEST, new AppError(413, 'payload_too_large', 'The request body exceeds the 1 MB limit.')),
      );
    // A body that does not decode (its Content-Encoding) says so; anything else is unparseable JSON.
    const parseError = err instanceof AppError ? err : new AppError(400, 'invalid_json', 'The request body is not valid JSON.');
    return errorReply(ctx, 200, envelope(RPC.PARSE_ERROR, parseError));
  }

  // The same guard as every REST route: no NUL, lone surrogate or over-deep nesting reaches a domain function.
  const bad = findBadInput((ctx.request as { body?: unknown }).body);
  if (bad)
    return errorReply(
      ctx,
      200,
      envelope(RPC.INVALID_PARAMS, new AppError(400, bad.kind === 'depth' ? 'invalid_json' : 'invalid_params', describeBadInput(bad))),
    );
  // Members that name a prototype never reach the dispatcher (src/input-guard.ts dropPrototypeKeys).
  dropPrototypeKeys((ctx.request as { body?: unknown }).body);

  const principal = ctx.state.apiKey;
  const response = await dispatchA2a(
    ctx.deps,
    (ctx.request as { body?: unknown }).body,
    { developerId: principal?.developerId, keyId: principal?.keyId, principal, requestId: ctx.state.requestId },
    {
      waitMs: preferredWaitMs(ctx.get('prefer'), { defaultS: DEFAULT_WAIT_S, maxS: MAX_WAIT_S }),
      internalError: (err) => {
        const unavailable = databaseUnavailable(err);
        if (unavailable) {
          ctx.deps.logger.warn(
            { err, reason: unavailable.reason, requestId: ctx.state.requestId, path: ctx.path },
            `database ${unavailable.reason}`,
          );
          return {
            code: RPC.SERVER_ERROR,
            message: 'Service temporarily unavailable.',
            data: { error: 'service_unavailable', message: unavailable.message },
          };
        }
        ctx.deps.logger.error({ err, requestId: ctx.state.requestId, path: ctx.path }, 'unhandled A2A error');
        const message = `Internal error. Quote request id ${ctx.state.requestId} when reporting it.`;
        return { code: RPC.INTERNAL_ERROR, message, data: { error: 'internal_error', message } };
      },
    },
  );
  reply(ctx, 200, response);
};

import type { Middleware } from 'koa';
import { AppError } from '../../src/errors';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
} from '../../src/idempotency/store';
import type { AppContext, AppState } from '../context';
import { renderError } from './errors';
import { countIdempotencyReplay } from '../../src/metrics/api';

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` for API-key callers on POST (the ACP/UCP convention): the first request with a
 * key runs and its response is stored for 24 h; the same key with the same body replays it with
 * `Idempotent-Replayed: true`; a different body is 409 `idempotency_conflict`; a request still
 * running is 409 `idempotency_in_flight`. 5xx responses are never stored, so they may be retried.
 * Keys are scoped to the developer account, so rotating API keys mid-retry is safe.
 */
export const idempotency: Middleware<AppState> = async (ctx, next) => {
  const key = ctx.get('idempotency-key');
  const principal = ctx.state.apiKey;
  if (ctx.method !== 'POST' || !key || !principal) return next();
  if (!KEY_SHAPE.test(key)) {
    throw new AppError(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1-255 printable ASCII characters.');
  }
  const db = ctx.deps.db;
  const ownerId = principal.developerId;
  const claim = await claimIdempotencyKey(db, {
    ownerId,
    key,
    method: ctx.method,
    path: ctx.path,
    body: (ctx.request as { body?: unknown }).body ?? null,
  });
  switch (claim.kind) {
    case 'conflict':
      throw new AppError(409, 'idempotency_conflict', 'This Idempotency-Key was already used with a different request body.');
    case 'in_flight':
      throw new AppError(409, 'idempotency_in_flight', 'A request with this Idempotency-Key is still being processed; retry shortly.', undefined, { 'Retry-After': '1' });
    case 'replay':
      countIdempotencyReplay();
      ctx.status = claim.status;
      ctx.body = claim.body;
      ctx.set('Idempotent-Replayed', 'true');
      return;
    case 'claimed':
      break;
  }
  try {
    await next();
  } catch (err) {
    // Render here so that a 4xx answer is stored and replayed like any other response.
    renderError(ctx as AppContext, err);
  }
  if (ctx.status >= 500) await releaseIdempotencyKey(db, ownerId, key);
  else await completeIdempotencyKey(db, ownerId, key, ctx.status, ctx.body);
};

import type { Middleware } from 'koa';
import { AppError } from '../../src/errors';
import { newId } from '../../src/ids';
import {
  CLAIM_HEARTBEAT_MS,
  STALE_CLAIM_SECONDS,
  claimIdempotencyKey,
  completeIdempotencyKey,
  heartbeatIdempotencyKey,
  openStoredResponse,
  releaseIdempotencyKey,
  seededId,
  type Claim,
  type IdempotencyRequest,
} from '../../src/idempotency/store';
import type { Db } from '../../src/db/connect';
import type { AppContext, AppState } from '../context';
import { renderError } from './errors';
import { countIdempotencyReplay } from '../../src/metrics/api';

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
/** A claim quiet for longer than this may belong to a dead process: a retry waits to take it over. */
const SUSPECT_AFTER_MS = 2 * CLAIM_HEARTBEAT_MS;
const POLL_MS = 250;

/**
 * The id of a resource the current request creates: derived from its Idempotency-Key claim when it
 * has one (so a retry after a crash names the same resource), else fresh.
 */
export function requestResourceId(ctx: { state: AppState }, prefix: string): string {
  const seed = ctx.state.idempotency?.seed;
  return seed ? seededId(seed, prefix) : newId(prefix);
}

/** A resource id fixed by the request's Idempotency-Key claim; undefined without a key (the callee makes one). */
export function keyedResourceId(ctx: { state: AppState }, prefix: string): string | undefined {
  const seed = ctx.state.idempotency?.seed;
  return seed ? seededId(seed, prefix) : undefined;
}

/** The keyed request itself, named from its claim (the same in a retry after a crash); undefined without a key. */
export function keyedRequestId(ctx: { state: AppState }): string | undefined {
  const seed = ctx.state.idempotency?.seed;
  return seed ? seededId(seed, 'req') : undefined;
}

/**
 * Claims the key; an in-flight claim whose heartbeat has gone quiet is watched until it is either
 * finished by its owner (replay) or stale (taken over), at most STALE_CLAIM_SECONDS + 1 s. A live
 * owner heartbeats every second, so a concurrent duplicate still gets 409 at once.
 */
async function claimOrTakeOver(db: Db, r: IdempotencyRequest): Promise<Claim> {
  let claim = await claimIdempotencyKey(db, r);
  if (claim.kind !== 'in_flight' || claim.heartbeatAgeMs < SUSPECT_AFTER_MS) return claim;
  const deadline = Date.now() + (STALE_CLAIM_SECONDS + 1) * 1000;
  while (claim.kind === 'in_flight' && Date.now() < deadline) {
    await new Promise((res) => setTimeout(res, POLL_MS));
    claim = await claimIdempotencyKey(db, r);
    if (claim.kind === 'in_flight' && claim.heartbeatAgeMs < SUSPECT_AFTER_MS) break; // the owner is alive after all
  }
  return claim;
}

/**
 * `Idempotency-Key` on POST (the ACP/UCP convention), for API-key callers and for the developer
 * console's session-token callers alike: the first request with a key runs and its response is stored
 * for 24 h (sealed when it carries a secret, e.g. a new API key); the same key with the same body
 * replays it with `Idempotent-Replayed: true`; a different body is 409 `idempotency_conflict`; a
 * request still running is 409 `idempotency_in_flight`. 5xx responses are never stored, so they may
 * be retried. Keys are scoped to the developer account, so rotating API keys or console sessions
 * mid-retry is safe.
 *
 * Crash safety (docs/OPERATIONS.md, failure modes): the claim carries a seed from which the request
 * derives the ids it creates (`requestResourceId`), and a heartbeat; when the process running it
 * dies, a retry notices the silent heartbeat within seconds, takes the claim over with the same seed,
 * and so finishes the same intent or runtime instead of creating a second one.
 */
export const idempotency: Middleware<AppState> = async (ctx, next) => {
  const key = ctx.get('idempotency-key');
  // The developer account owns the key, whichever credential proved it (API key or console session).
  const ownerId = ctx.state.apiKey?.developerId ?? ctx.state.developer?.developer_id;
  if (ctx.method !== 'POST' || !key || !ownerId) return next();
  if (!KEY_SHAPE.test(key)) {
    throw new AppError(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1-255 printable ASCII characters.');
  }
  const db = ctx.deps.db;
  const sealKey = ctx.deps.config.KEY_ENCRYPTION_KEY;
  const claim = await claimOrTakeOver(db, {
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
      throw new AppError(
        409,
        'idempotency_in_flight',
        'A request with this Idempotency-Key is still being processed; retry shortly.',
        undefined,
        { 'Retry-After': '1' },
      );
    case 'replay':
      countIdempotencyReplay();
      ctx.status = claim.status;
      ctx.body = openStoredResponse(claim, ownerId, key, sealKey);
      ctx.set('Idempotent-Replayed', 'true');
      return;
    case 'claimed':
      break;
  }
  ctx.state.idempotency = { seed: claim.seed, takeover: claim.takeover };
  const heartbeat = setInterval(() => {
    // A missed beat (Postgres away for a moment) is harmless: five in a row make the claim stale.
    heartbeatIdempotencyKey(db, ownerId, key, claim.seed).catch(() => undefined);
  }, CLAIM_HEARTBEAT_MS);
  heartbeat.unref();
  try {
    await next();
  } catch (err) {
    // Render here so that a 4xx answer is stored and replayed like any other response.
    renderError(ctx as AppContext, err);
  } finally {
    clearInterval(heartbeat);
  }
  if (ctx.status >= 500) await releaseIdempotencyKey(db, ownerId, key);
  else await completeIdempotencyKey(db, ownerId, key, ctx.status, ctx.body, sealKey);
};

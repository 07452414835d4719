import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from '../context';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{8,128}$/;

/** Every response carries `x-request-id`; a well-formed id sent by the caller is kept for tracing. */
export const requestId: Middleware<AppState> = async (ctx, next) => {
  const given = ctx.get('x-request-id');
  ctx.state.requestId = ACCEPTABLE.test(given) ? given : `req_${randomUUID().replace(/-/g, '')}`;
  ctx.state.startedAt = performance.now();
  ctx.set('x-request-id', ctx.state.requestId);
  await next();
};

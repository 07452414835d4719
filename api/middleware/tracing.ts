import type { Middleware } from 'koa';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { tracer } from '../../src/tracing';
import type { AppState } from '../context';

/**
 * One server span per request (only mounted when tracing is on), continuing a caller's `traceparent`.
 * Everything the request does runs in its context: a workflow it starts carries the trace in its
 * headers (the Temporal client interceptor), so workflow and activity spans join the same trace.
 */
export const traceRequests: Middleware<AppState> = async (ctx, next) => {
  const parent = propagation.extract(context.active(), ctx.headers);
  const span = tracer().startSpan(
    `${ctx.method} ${ctx.path}`,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': ctx.method, 'url.path': ctx.path } },
    parent,
  );
  try {
    await context.with(trace.setSpan(parent, span), next);
  } finally {
    const route = (ctx as { _matchedRoute?: string })._matchedRoute;
    if (route) span.updateName(`${ctx.method} ${route}`);
    span.setAttribute('http.response.status_code', ctx.status);
    if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
};

import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * OpenTelemetry tracing across API request → workflow → activity → merchant call (docs/OPERATIONS.md).
 * Off unless the standard env asks for it: OTEL_TRACES_EXPORTER=otlp, or an OTLP endpoint
 * (OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) with no exporter named;
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none keep it off. The exporter (OTLP over HTTP)
 * and the batch processor read the rest of the OTEL_* variables themselves.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter) return exporter.split(',').some((e) => e.trim() === 'otlp');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export interface Tracing {
  resource: Resource;
  /** Where the worker's workflow spans go (through the interceptors' sink). */
  spanProcessor: SpanProcessor;
  shutdown(): Promise<void>;
}

let active: Tracing | null = null;

/** The process's tracing, or null when off. */
export function tracing(): Tracing | null {
  return active;
}

/** Registers the global tracer provider (once per process) when the env asks for tracing; null otherwise. */
export function startTracing(service: 'api' | 'worker', env: NodeJS.ProcessEnv = process.env): Tracing | null {
  if (active || !tracingRequested(env)) return active;
  const resource = new Resource({ 'service.name': env.OTEL_SERVICE_NAME ?? `commerce-gateway-${service}` });
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // The AsyncLocalStorage context manager and the W3C traceparent propagator.
  provider.register();
  active = { resource, spanProcessor, shutdown: () => provider.shutdown() };
  return active;
}

export const tracer = () => trace.getTracer('commerce-gateway');

/** Adds the active trace context (`traceparent`) to outbound headers; nothing when tracing is off. */
export function withTraceHeaders(headers: Record<string, string>): Record<string, string> {
  if (!active) return headers;
  const carrier: Record<string, string> = { ...headers };
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** Runs `fn` in a client span for an outbound HTTP call (a merchant), when tracing is on. */
export async function outboundSpan<T>(name: string, url: string, fn: () => Promise<T>, status: (r: T) => number): Promise<T> {
  if (!active) return fn();
  return tracer().startActiveSpan(name, { kind: SpanKind.CLIENT, attributes: { 'url.full': url } }, async (span: Span) => {
    try {
      const r = await fn();
      span.setAttribute('http.response.status_code', status(r));
      return r;
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createDb, type Db } from '../src/db/connect';
import { freePort } from '../src/net';
import { tracingRequested } from '../src/tracing';
import { onboard, type Onboarded } from './helpers/console';
import { call } from './helpers/http';
import { stockedProduct } from './helpers/catalog';
import { readBody, startLoopback, type LoopbackServer } from './helpers/loopback';
import { startApiProcess, type ApiProcess } from './helpers/api-process';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-process';
import type { TestApi } from './helpers/stack';
import { apiEnv, proposingMerchant, deploymentEnv, eventually, letters } from './faults/deployment';

/**
 * Tracing across API → workflow → activity → merchant call, with the standard OTEL_* env pointed at
 * an OTLP/HTTP receiver in this test (a real HTTP server collecting what `npm run api` and
 * `npm run worker` export). A request carrying a caller's `traceparent` ends up as one trace: the
 * API's server span, the workflow's spans, the activity's span and the outbound call's span all
 * carry its trace id, and the merchant receives a `traceparent` of that trace.
 */
interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}
const spans: ExportedSpan[] = [];
let receiver: LoopbackServer;
let api: ApiProcess;
let worker: WorkerProcess;
let db: Db;
let dev: Onboarded;

beforeAll(async () => {
  // OTLP/HTTP with JSON bodies (what @opentelemetry/exporter-trace-otlp-http sends) on /v1/traces.
  receiver = await startLoopback(async (req, res) => {
    const body = JSON.parse((await readBody(req)) || '{}');
    for (const rs of body.resourceSpans ?? []) {
      const service = rs.resource?.attributes?.find((a: { key: string }) => a.key === 'service.name')?.value?.stringValue ?? '';
      for (const ss of rs.scopeSpans ?? [])
        for (const s of ss.spans ?? [])
          spans.push({ service, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId, name: s.name });
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '200' };
  const port = await freePort();
  const shared = deploymentEnv({
    databaseUrl: inject('databaseUrl'),
    temporalAddress: inject('temporalAddress'),
    url: `http://127.0.0.1:${port}`,
    taskQueue: `tracing-${letters()}`,
  });
  api = startApiProcess(port, apiEnv(shared, otel));
  worker = startWorkerProcess({ url: api.url, config: { TEMPORAL_TASK_QUEUE: shared.TEMPORAL_TASK_QUEUE } } as TestApi, {
    ...shared,
    ...otel,
  });
  await Promise.all([api.ready, worker.ready]);
  db = createDb(inject('databaseUrl'), { max: 2 });
  dev = await onboard(api.url);
}, 120_000);

afterAll(async () => {
  await worker?.stop(30_000);
  await api?.stop(30_000);
  await receiver?.close();
  await db?.destroy();
});

describe('OpenTelemetry tracing', () => {
  it('is off unless the OTEL_* env asks for it', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(false);
    expect(tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(false);
  });

  it('one trace from the API request through workflow and activity to the merchant call', { timeout: 90_000 }, async () => {
    const product = await stockedProduct(db);
    const tag = letters();
    const merchant = await proposingMerchant(product);
    try {
      const reg = await call(api.url, 'POST', '/v1/merchant/register', {
        token: dev.apiKey,
        body: { merchant_id: `m-${tag}`, agent_endpoint: merchant.server.url, subscription_tags: [tag] },
      });
      expect(reg.status, reg.text).toBe(200);

      const traceId = randomBytes(16).toString('hex');
      const callerSpan = randomBytes(8).toString('hex');
      const res = await call(api.url, 'POST', '/v1/commerce-runtime', {
        token: dev.apiKey,
        body: { intent: { raw_query: `${tag} wireless headphones`, intent_tags: [tag] } },
        headers: { prefer: 'wait=30', traceparent: `00-${traceId}-${callerSpan}-01` },
      });
      expect(res.status, res.text).toBe(201);

      // The merchant's runtime query carried the trace.
      const query = merchant.requests.find((r) => r.body.type === 'runtime.query');
      expect(query, 'the merchant was queried').toBeDefined();
      expect(String(query!.headers.traceparent)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-0[01]$`));

      // And the exported spans of both processes form one trace.
      const inTrace = await eventually(
        'spans of the API, workflow, activity and outbound call exported',
        async () => {
          const mine = spans.filter((s) => s.traceId === traceId);
          const has = (service: string, re: RegExp) => mine.some((s) => s.service === service && re.test(s.name));
          return (
            has('commerce-gateway-api', /^POST \/v1\/commerce-runtime$/) &&
            has('commerce-gateway-worker', /^RunWorkflow:commerceRuntime$/) &&
            has('commerce-gateway-worker', /^RunActivity:/) &&
            has('commerce-gateway-worker', /^POST 127\.0\.0\.1:/) &&
            mine
          );
        },
        30_000,
      );
      const server = inTrace.find((s) => s.service === 'commerce-gateway-api' && s.name === 'POST /v1/commerce-runtime')!;
      expect(server.parentSpanId).toBe(callerSpan);
      // The merchant saw the outbound call's own span as its parent.
      const outbound = inTrace.filter((s) => /^POST 127\.0\.0\.1:/.test(s.name)).map((s) => s.spanId);
      expect(outbound).toContain(String(query!.headers.traceparent).split('-')[2]);
    } finally {
      await merchant.server.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTemporal } from '../src/temporal/client';
import { workflowIds } from '../src/temporal/names';
import { freePort } from '../src/net';
import { ping } from '../workflows/index';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { startWorkerProcess } from './helpers/worker-process';

/**
 * Prometheus metrics (docs/OPERATIONS.md): the API's `GET /metrics` and the worker process's own
 * listener, read after real traffic.
 */
let api: TestApi;
let dev: Onboarded;

/** The value of one sample line (`name{labels} value`), or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

beforeAll(async () => {
  api = await startTestApi();
  dev = await onboard(api.url);
});
afterAll(async () => {
  await api?.close();
});

describe('API /metrics', () => {
  it('counts requests by route template and status, times them, and names error codes', async () => {
    const before = await call(api.url, 'GET', '/metrics');
    const sessionId = `ms_${Math.random().toString(36).slice(2, 12)}`;
    expect((await call(api.url, 'GET', '/v1/whoami', { token: dev.apiKey })).status).toBe(200);
    expect((await call(api.url, 'GET', '/v1/whoami', { token: dev.apiKey })).status).toBe(200);
    const missing = await call(api.url, 'GET', `/v1/match/${sessionId}`, { token: dev.apiKey });
    expect(missing.status).toBe(404);
    const res = await call(api.url, 'GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = res.text;
    const whoami = 'gateway_http_requests_total{method="GET",route="/v1/whoami",status="200"}';
    expect((sample(text, whoami) ?? 0) - (sample(before.text, whoami) ?? 0)).toBe(2);
    // The route template, never the id in the path.
    const route = text.match(/gateway_http_requests_total\{method="GET",route="(\/v1\/match\/:[^"]+)",status="404"\}/)?.[1];
    expect(route).toBeDefined();
    expect(text).not.toContain(sessionId);
    expect(sample(text, `gateway_http_errors_total{route="${route}",status="404",code="${missing.body.error}"}`)).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'gateway_http_request_duration_seconds_count{method="GET",route="/v1/whoami"}')).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/gateway_http_request_duration_seconds_bucket\{le="0\.05",method="GET",route="\/v1\/whoami"\} \d+/);
    expect(sample(text, 'gateway_db_pool_connections{state="total"}')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^gateway_db_pool_connections\{state="waiting"\} \d+$/m);
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
  });

  it('counts idempotency replays', async () => {
    const before = (await call(api.url, 'GET', '/metrics')).text;
    const key = `metrics-${Date.now()}`;
    const body = { raw_query: 'trail running shoes under $150' };
    const first = await call(api.url, 'POST', '/v1/intents', { token: dev.apiKey, body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    const again = await call(api.url, 'POST', '/v1/intents', { token: dev.apiKey, body, headers: { 'idempotency-key': key } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const after = (await call(api.url, 'GET', '/metrics')).text;
    expect((sample(after, 'gateway_idempotency_replays_total') ?? 0) - (sample(before, 'gateway_idempotency_replays_total') ?? 0)).toBe(1);
  });

  it('is not written to the request logs, even when the scraper presents an API key', async () => {
    expect((await call(api.url, 'GET', '/metrics', { token: dev.apiKey })).status).toBe(200);
    expect((await call(api.url, 'GET', '/v1/whoami', { token: dev.apiKey })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300)); // request logs flush every 50 ms here
    const logs = await call(api.url, 'GET', '/v1/developers/logs?limit=100', { token: dev.developerToken });
    expect(logs.status).toBe(200);
    const paths = (logs.body.logs as Array<{ path: string }>).map((l) => l.path);
    expect(paths).toContain('/v1/whoami');
    expect(paths).not.toContain('/metrics');
  });

  it('counts rate-limit rejections and is never rate limited itself', async () => {
    const limited = await startTestApi({ env: { RATE_LIMIT_PER_IP: '2' }, withTemporal: false });
    try {
      const before = (await call(limited.url, 'GET', '/metrics')).text;
      // Keyless calls spend the IP's bucket (2 per window here): the third and later are refused.
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await call(limited.url, 'GET', '/openapi.json')).status);
      expect(statuses).toEqual([200, 200, 429, 429]);
      for (let i = 0; i < 5; i++) expect((await call(limited.url, 'GET', '/metrics')).status).toBe(200);
      const after = (await call(limited.url, 'GET', '/metrics')).text;
      const series = 'gateway_rate_limit_rejections_total{limiter="ip"}';
      expect((sample(after, series) ?? 0) - (sample(before, series) ?? 0)).toBe(2);
      const errors = 'gateway_http_errors_total{route="/openapi.json",status="429",code="rate_limited"}';
      expect((sample(after, errors) ?? 0) - (sample(before, errors) ?? 0)).toBe(2);
    } finally {
      await limited.close();
    }
  });

  it('with METRICS_TOKEN, answers only a scraper presenting it', async () => {
    const token = 'metrics-token-0123456789';
    const guarded = await startTestApi({ env: { METRICS_TOKEN: token }, withTemporal: false });
    try {
      expect((await call(guarded.url, 'GET', '/metrics')).status).toBe(401);
      expect((await call(guarded.url, 'GET', '/metrics', { token: 'metrics-token-wrong-012345' })).status).toBe(401);
      const ok = await call(guarded.url, 'GET', '/metrics', { token });
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('gateway_http_requests_total');
      expect((await call(guarded.url, 'POST', '/metrics', { token })).status).toBe(405);
    } finally {
      await guarded.close();
    }
  });
});

describe('worker /metrics', () => {
  // A worker process bundles the workflows at start: allow for a loaded machine.
  it('serves the SDK runtime metrics with activity latency, outcomes and the delivery gauges', { timeout: 180_000 }, async () => {
    const port = await freePort();
    const worker = startWorkerProcess(api, { WORKER_METRICS_PORT: String(port) });
    const temporal = await connectTemporal(api.config.TEMPORAL_ADDRESS!, api.config.TEMPORAL_NAMESPACE, api.config.TEMPORAL_TASK_QUEUE);
    try {
      await worker.ready;
      const base = `http://127.0.0.1:${port}`;
      expect((await call(base, 'GET', '/healthz')).body).toEqual({ status: 'ok', worker: 'RUNNING' });
      const taskQueue = api.config.TEMPORAL_TASK_QUEUE;
      const result = await temporal.client.workflow.execute(ping, {
        taskQueue,
        workflowId: workflowIds.ping(`${taskQueue}-metrics`),
        args: ['metrics'],
      });
      expect(result.message).toBe('metrics');
      const res = await call(base, 'GET', '/metrics');
      expect(res.status).toBe(200);
      const text = res.text;
      expect(sample(text, 'gateway_activity_executions_total{activity="echo",outcome="completed"}')).toBe(1);
      expect(sample(text, 'gateway_activity_duration_seconds_count{activity="echo"}')).toBe(1);
      for (const state of ['pending', 'inflight', 'dlq'])
        expect(sample(text, `gateway_deliveries{state="${state}"}`), state).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'gateway_dlq_depth')).toBeGreaterThanOrEqual(0);
      expect(text).toMatch(/^process_resident_memory_bytes \d/m);
      // The Temporal SDK's own metrics, from its exporter, in the same scrape.
      expect(text).toMatch(/^temporal_workflow_completed_total\{[^}]*task_queue="[^"]+"[^}]*\} [1-9]/m);
      expect(text).toMatch(/^temporal_worker_task_slots_available\{/m);
      expect(text).toMatch(/^temporal_num_pollers\{[^}]*poller_type="workflow_task"[^}]*\} [1-9]/m);
      expect(text).toMatch(/^temporal_activity_execution_latency_bucket\{/m);
      expect((await call(base, 'GET', '/nope')).status).toBe(404);
    } finally {
      await temporal.connection.close();
      await worker.stop();
    }
  });
});

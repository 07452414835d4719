import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { stockedProduct } from './helpers/catalog';
import { withTestWorker } from './helpers/worker';

/**
 * MCP over Streamable HTTP (docs/MCP.md), driven by the official SDK client against the real Koa app,
 * Postgres and Temporal; the commerce runtime runs on a real worker.
 */
const signingKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

let api: TestApi;
let dev: Onboarded;
const clients: Client[] = [];

async function connect(token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', api.url), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
  });
  const client = new Client({ name: 'mcp-test', version: '0.0.1' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function tool(client: Client, name: string, args: Record<string, unknown>) {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = res.content.find((c) => c.type === 'text');
  const fromText = text?.type === 'text' ? JSON.parse(text.text) : undefined;
  // The text content and structuredContent carry the same JSON.
  expect(res.structuredContent).toEqual(fromText);
  return { isError: res.isError === true, body: fromText as any };
}

beforeAll(async () => {
  api = await startTestApi({ withTemporal: true, env: { MATCH_TOKEN_SIGNING_KEY: signingKey } });
  dev = await onboard(api.url);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await api?.close();
});

describe('MCP endpoint /mcp', () => {
  it('lists the five tools with their input schemas', async () => {
    const client = await connect(dev.apiKey);
    expect(client.getServerVersion()?.name).toBe('commerce-intent-matching-gateway');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['accept_match', 'create_intent', 'get_match_session', 'recommend', 'run_commerce_runtime']);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.recommend!.inputSchema.required).toContain('intent');
    expect(byName.create_intent!.inputSchema.required).toContain('raw_query');
    expect(byName.run_commerce_runtime!.inputSchema.required).toContain('intent');
    expect(byName.get_match_session!.inputSchema.required).toContain('match_session_id');
    expect(byName.accept_match!.inputSchema.required).toContain('match_session_id');
  });

  it('recommend → get_match_session → accept_match returns a match token', async () => {
    const client = await connect(dev.apiKey);
    const rec = await tool(client, 'recommend', { intent: 'wireless headphones under $200', limit: 3 });
    expect(rec.isError, JSON.stringify(rec.body)).toBe(false);
    expect(rec.body.items.length).toBeGreaterThan(0);
    expect(rec.body.items.length).toBeLessThanOrEqual(3);
    const sessionId: string = rec.body.match_session_id;
    expect(sessionId).toBeTruthy();

    const got = await tool(client, 'get_match_session', { match_session_id: sessionId, limit: 2 });
    expect(got.isError, JSON.stringify(got.body)).toBe(false);
    // Same body as the REST route renders.
    const rest = await call(api.url, 'GET', `/v1/match/${sessionId}?limit=2`, { token: dev.apiKey });
    expect(rest.status).toBe(200);
    expect(got.body).toEqual(rest.body);
    expect(got.body.match_session.match_session_id).toBe(sessionId);
    expect(got.body.ranked_proposals.length).toBeGreaterThan(0);

    const accepted = await tool(client, 'accept_match', { match_session_id: sessionId });
    expect(accepted.isError, JSON.stringify(accepted.body)).toBe(false);
    expect(accepted.body.match_token).toMatchObject({ match_session_id: sessionId, acceptance_state: 'accepted' });
    expect(accepted.body.match_token.proposal_id).toBe(got.body.ranked_proposals[0].proposal_id);
    // Accepting the same proposal again returns the same token, as over REST.
    const again = await tool(client, 'accept_match', { match_session_id: sessionId, proposal_id: accepted.body.match_token.proposal_id });
    expect(again.body.match_token.match_token_id).toBe(accepted.body.match_token.match_token_id);
    const token = await call(api.url, 'GET', `/v1/match-tokens/${accepted.body.match_token.match_token_id}`, { token: dev.apiKey });
    expect(token.status).toBe(200);
  });

  it('create_intent stores an intent readable over REST and starts its fan-out', async () => {
    const client = await connect(dev.apiKey);
    const res = await tool(client, 'create_intent', { raw_query: 'running shoes under $80 in Canada', intent_tags: ['running'] });
    expect(res.isError, JSON.stringify(res.body)).toBe(false);
    const id: string = res.body.intent.intent_id;
    const rest = await call(api.url, 'GET', `/v1/intents/${id}`, { token: dev.apiKey });
    expect(rest.status).toBe(200);
    expect(rest.body.intent).toEqual(res.body.intent);
    expect(rest.body.intent.region).toBe('CA');
    const row = await api.db.selectFrom('intents').select(['surge_started_at', 'developer_id']).where('intent_id', '=', id).executeTakeFirstOrThrow();
    expect(row.surge_started_at).not.toBeNull();
    expect(row.developer_id).toBe(dev.developerId);
  });

  it('run_commerce_runtime runs the loop on a worker and returns the runtime with its match token', async () => {
    const product = await stockedProduct(api.db);
    const tag = `mcp${Math.random().toString(36).slice(2, 8)}`;
    const res = await withTestWorker({ ...api.config, publicBaseUrl: api.url }, api.db, async () => {
      const client = await connect(dev.apiKey);
      return tool(client, 'run_commerce_runtime', { intent: { raw_query: product.title, intent_tags: [tag] }, wait_s: 30 });
    });
    expect(res.isError, JSON.stringify(res.body)).toBe(false);
    const rt = res.body.runtime;
    expect(rt.runtime_trace.audit_status).toBe('completed');
    expect(rt.proposal).toMatchObject({ merchant_agent_id: 'gateway-catalog' });
    expect(rt.match_token).toMatchObject({ acceptance_state: 'accepted' });
    const rest = await call(api.url, 'GET', `/v1/commerce-runtime/${rt.runtime_session.runtime_id}`, { token: dev.apiKey });
    expect(rest.status).toBe(200);
    expect(rest.body.runtime.match_token.match_token_id).toBe(rt.match_token.match_token_id);
  });

  it('run_commerce_runtime past its wait bound returns the runtime id and status', async () => {
    // No worker polls here, so the loop cannot finish within wait_s 0.
    const client = await connect(dev.apiKey);
    const res = await tool(client, 'run_commerce_runtime', { intent: { raw_query: 'a desk lamp' }, wait_s: 0 });
    expect(res.isError, JSON.stringify(res.body)).toBe(false);
    expect(res.body).toMatchObject({ status: 'running', status_url: `/v1/commerce-runtime/${res.body.runtime_id}` });
    const rest = await call(api.url, 'GET', res.body.status_url, { token: dev.apiKey });
    expect(rest.status).toBe(200);
    expect(rest.body.runtime.runtime_session.runtime_id).toBe(res.body.runtime_id);
  });

  it('a business error is a tool result with isError, not a transport failure', async () => {
    const client = await connect(dev.apiKey);
    const res = await tool(client, 'get_match_session', { match_session_id: 'ms_does_not_exist' });
    expect(res.isError).toBe(true);
    expect(res.body).toMatchObject({ error: 'match_not_found' });
    expect(typeof res.body.message).toBe('string');
    const acc = await tool(client, 'accept_match', { match_session_id: 'ms_does_not_exist' });
    expect(acc).toMatchObject({ isError: true, body: { error: 'match_not_found' } });
    // The connection still works afterwards.
    expect((await client.listTools()).tools).toHaveLength(5);
  });

  it('invalid arguments are an isError result; a plain JSON-RPC POST works without initialize (stateless)', async () => {
    const client = await connect(dev.apiKey);
    const bad = (await client.callTool({ name: 'recommend', arguments: { intent: 'lamp', limit: 50 } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    const raw = await call(api.url, 'POST', '/mcp', {
      token: dev.apiKey,
      body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_match_session', arguments: { match_session_id: 'ms_x' } } },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('mcp-session-id')).toBeNull();
    expect(raw.body).toMatchObject({ jsonrpc: '2.0', id: 7, result: { isError: true, structuredContent: { error: 'match_not_found' } } });
  });

  it('checks the scope per tool', async () => {
    const limited = await onboard(api.url, { scopes: ['match'] });
    const client = await connect(limited.apiKey);
    const rec = await tool(client, 'recommend', { intent: 'coffee grinder' });
    expect(rec).toMatchObject({ isError: true, body: { error: 'insufficient_scope' } });
    const got = await tool(client, 'get_match_session', { match_session_id: 'ms_does_not_exist' });
    expect(got.body.error).toBe('match_not_found');
  });

  it('401 invalid_api_key without a valid bearer: the client cannot connect', async () => {
    for (const token of [undefined, 'cig_sk_not_a_real_key', dev.developerToken]) {
      // StreamableHTTPError carries the HTTP status as its code.
      await expect(connect(token)).rejects.toMatchObject({ code: 401, message: expect.stringContaining('invalid_api_key') });
    }
    const res = await call(api.url, 'POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_api_key');
  });

  it('GET and DELETE are 405 (stateless server: no SSE stream, no sessions)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await call(api.url, method, '/mcp', { token: dev.apiKey, headers: { accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });
});

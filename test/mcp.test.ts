import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
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
  if (res.isError) {
    // An error is not the tool's output: {error, message} as text only (no structuredContent to fail the outputSchema).
    expect(res.structuredContent).toBeUndefined();
  } else {
    // The text content and structuredContent carry the same JSON (the client has validated it against the outputSchema).
    expect(res.structuredContent).toEqual(fromText);
  }
  return { isError: res.isError === true, body: fromText as any };
}

const TOOLS = [
  'accept_match',
  'confirm_checkout',
  'create_intent',
  'create_match',
  'get_checkout',
  'get_match_session',
  'get_runtime',
  'list_proposals',
  'plan_checkout',
  'recommend',
  'run_commerce_runtime',
];

/** Every place in a JSON Schema that an LLM-facing input schema must not have. */
function schemaProblems(schema: unknown, path = '#'): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as Record<string, unknown>;
  const out: string[] = [];
  for (const k of ['$ref', 'definitions', '$defs', 'allOf', 'anyOf', 'oneOf']) if (k in s) out.push(`${path}: ${k}`);
  if (
    'additionalProperties' in s &&
    typeof s.additionalProperties === 'object' &&
    s.additionalProperties &&
    Object.keys(s.additionalProperties).length === 0
  ) {
    out.push(`${path}: bare additionalProperties {}`);
  }
  const props = (s.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, p] of Object.entries(props)) {
    if (typeof p.description !== 'string' || p.description.length < 8) out.push(`${path}.${name}: no description`);
    out.push(...schemaProblems(p, `${path}.${name}`));
  }
  if (s.items) out.push(...schemaProblems(s.items, `${path}[]`));
  return out;
}

beforeAll(async () => {
  api = await startTestApi({ withTemporal: true, env: { MATCH_TOKEN_SIGNING_KEY: signingKey, ALLOW_PRIVATE_ENDPOINTS: 'true' } });
  dev = await onboard(api.url);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await api?.close();
});

describe('MCP endpoint /mcp', () => {
  it("lists the journey's tools, each with a flat described input schema and an outputSchema; the buy_flow prompt walks through them", async () => {
    const client = await connect(dev.apiKey);
    expect(client.getServerVersion()?.name).toBe('commerce-intent-matching-gateway');
    expect(client.getInstructions()).toContain('confirm_checkout');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const t of tools) {
      expect(schemaProblems(t.inputSchema), t.name).toEqual([]);
      expect(t.inputSchema.properties, t.name).toHaveProperty('detail');
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(t.outputSchema?.required, t.name).toContain('next_step');
      expect(t.description!.length, t.name).toBeGreaterThan(40);
    }
    expect(byName.recommend!.inputSchema.required).toContain('intent');
    expect(byName.create_intent!.inputSchema.required).toContain('raw_query');
    expect(byName.run_commerce_runtime!.inputSchema.required).toContain('intent');
    expect(byName.get_match_session!.inputSchema.required).toContain('match_session_id');
    expect(byName.accept_match!.inputSchema.required).toContain('match_session_id');
    expect(byName.plan_checkout!.inputSchema.required).toEqual(expect.arrayContaining(['match_token_id', 'buyer_agent_id']));
    // Consent is required, and the description says so.
    expect(byName.confirm_checkout!.inputSchema.required).toEqual(
      expect.arrayContaining(['checkout_id', 'consent_granted', 'consent_statement', 'amount', 'currency']),
    );
    expect(byName.confirm_checkout!.description).toMatch(/REQUIRES the user's explicit consent/);

    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['buy_flow']);
    const prompt = await client.getPrompt({ name: 'buy_flow', arguments: { request: 'trail running shoes under $120' } });
    const first = prompt.messages[0]!.content;
    const text = first.type === 'text' ? first.text : '';
    expect(text).toContain('trail running shoes under $120');
    const order = ['recommend', 'accept_match', 'plan_checkout', 'confirm_checkout', 'get_checkout'].map((n) => text.indexOf(n));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toMatch(/explicit yes/);
  });

  it('recommend → get_match_session → accept_match: compact by default, the REST documents with detail full; one ranking', async () => {
    const client = await connect(dev.apiKey);
    const rec = await tool(client, 'recommend', { intent: 'wireless headphones under $200', limit: 5 });
    expect(rec.isError, JSON.stringify(rec.body)).toBe(false);
    expect(rec.body.items.length).toBeGreaterThan(0);
    expect(rec.body.items.length).toBeLessThanOrEqual(5);
    expect(rec.body.full).toBeUndefined();
    expect(rec.body.items[0]).toMatchObject({ rank: 1, proposal_id: rec.body.best_proposal_id, merchant_id: 'gateway-catalog' });
    for (const item of rec.body.items) {
      expect(item.buy_url).toMatch(/\/r\/rec_/);
      expect(typeof item.why).toBe('string');
    }
    expect(rec.body.next_step).toContain('accept_match');
    // Compact: a few KB where the documents are tens of KB.
    const fullRec = await tool(client, 'recommend', { intent: 'wireless headphones under $200', limit: 5, detail: 'full' });
    expect(fullRec.body.full.items).toHaveLength(fullRec.body.items.length);
    expect(JSON.stringify(rec.body).length * 4).toBeLessThan(JSON.stringify(fullRec.body.full).length);
    expect(JSON.stringify(rec.body).length).toBeLessThan(4000);
    const sessionId: string = rec.body.match_session_id;

    const got = await tool(client, 'get_match_session', { match_session_id: sessionId, limit: 2 });
    expect(got.isError, JSON.stringify(got.body)).toBe(false);
    expect(got.body).toMatchObject({
      match_session_id: sessionId,
      status: 'open',
      best_proposal_id: rec.body.best_proposal_id,
      ordered_by: 'recommendation',
    });
    expect(got.body.ranked.map((r: any) => r.proposal_id)).toEqual(rec.body.items.slice(0, 2).map((i: any) => i.proposal_id));
    // detail full: the same body as the REST route renders.
    const gotFull = await tool(client, 'get_match_session', { match_session_id: sessionId, limit: 2, detail: 'full' });
    const rest = await call(api.url, 'GET', `/v1/match/${sessionId}?limit=2`, { token: dev.apiKey });
    expect(rest.status).toBe(200);
    expect(gotFull.body.full).toEqual(rest.body);

    const accepted = await tool(client, 'accept_match', { match_session_id: sessionId });
    expect(accepted.isError, JSON.stringify(accepted.body)).toBe(false);
    expect(accepted.body).toMatchObject({
      match_session_id: sessionId,
      acceptance_state: 'accepted',
      proposal_id: rec.body.items[0].proposal_id,
    });
    expect(accepted.body.next_step).toContain('plan_checkout');
    // Accepting the same proposal again returns the same token, as over REST.
    const again = await tool(client, 'accept_match', {
      match_session_id: sessionId,
      proposal_id: accepted.body.proposal_id,
      detail: 'full',
    });
    expect(again.body.match_token_id).toBe(accepted.body.match_token_id);
    expect(again.body.full.match_token.signed_token).toMatch(/^ey/);
    const token = await call(api.url, 'GET', `/v1/match-tokens/${accepted.body.match_token_id}`, { token: dev.apiKey });
    expect(token.status).toBe(200);
  });

  it('create_intent → list_proposals → create_match over MCP, the same records as REST', async () => {
    const client = await connect(dev.apiKey);
    const tag = `mcp${Math.random().toString(36).slice(2, 8)}`;
    const created = await tool(client, 'create_intent', { raw_query: 'trail running shoes under $120', intent_tags: [tag] });
    expect(created.isError, JSON.stringify(created.body)).toBe(false);
    expect(created.body).toMatchObject({ intent_tags: [tag], budget: { max: 120, currency: 'USD' } });
    const intentId = created.body.intent_id;
    const none = await tool(client, 'list_proposals', { intent_id: intentId });
    expect(none.body).toMatchObject({ intent_id: intentId, count: 0, proposals: [] });

    // A merchant answers over REST.
    const merchant_id = `m-${tag}`;
    const reg = await call(api.url, 'POST', '/v1/merchant/register', {
      token: dev.apiKey,
      body: { merchant_id, agent_endpoint: 'http://127.0.0.1:9/agent', subscription_tags: [tag] },
    });
    expect(reg.status, reg.text).toBe(200);
    const product = await stockedProduct(api.db);
    const prop = await call(api.url, 'POST', '/v1/proposals', {
      token: dev.apiKey,
      headers: { 'x-merchant-token': reg.body.registration_token },
      body: {
        merchant_agent_id: merchant_id,
        intent_id: intentId,
        product_id: product.product_id,
        offer_title: product.title,
        price: product.price_cents / 100,
      },
    });
    expect(prop.status, prop.text).toBe(201);

    const listed = await tool(client, 'list_proposals', { intent_id: intentId });
    expect(listed.body.proposals).toEqual([
      expect.objectContaining({
        proposal_id: prop.body.proposal.proposal_id,
        merchant_id,
        product_id: product.product_id,
        price: product.price_cents / 100,
      }),
    ]);
    const listedFull = await tool(client, 'list_proposals', { intent_id: intentId, detail: 'full' });
    expect(listedFull.body.full).toEqual((await call(api.url, 'GET', `/v1/intents/${intentId}/proposals`, { token: dev.apiKey })).body);

    const match = await tool(client, 'create_match', { intent_id: intentId });
    expect(match.isError, JSON.stringify(match.body)).toBe(false);
    expect(match.body).toMatchObject({
      intent_id: intentId,
      best_proposal_id: prop.body.proposal.proposal_id,
      ordered_by: 'score',
      status: 'open',
    });
    expect(match.body.ranked[0]).toMatchObject({ rank: 1, proposal_id: prop.body.proposal.proposal_id });
    expect(match.body.ranked[0].why).toMatch(/^score /);
    const session = await api.db
      .selectFrom('match_sessions')
      .select('developer_id')
      .where('match_session_id', '=', match.body.match_session_id)
      .executeTakeFirstOrThrow();
    expect(session.developer_id).toBe(dev.developerId);

    const unknown = await tool(client, 'list_proposals', { intent_id: 'int_nothing' });
    expect(unknown).toMatchObject({ isError: true, body: { error: 'intent_not_found' } });
  });

  it('create_intent stores an intent readable over REST and starts its fan-out', async () => {
    const client = await connect(dev.apiKey);
    const res = await tool(client, 'create_intent', {
      raw_query: 'running shoes under $80 in Canada',
      intent_tags: ['running'],
      detail: 'full',
    });
    expect(res.isError, JSON.stringify(res.body)).toBe(false);
    const id: string = res.body.intent_id;
    const rest = await call(api.url, 'GET', `/v1/intents/${id}`, { token: dev.apiKey });
    expect(rest.status).toBe(200);
    expect(rest.body.intent).toEqual(res.body.full.intent);
    expect(rest.body.intent.region).toBe('CA');
    expect(res.body.region).toBe('CA');
    const row = await api.db
      .selectFrom('intents')
      .select(['surge_started_at', 'developer_id'])
      .where('intent_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.surge_started_at).not.toBeNull();
    expect(row.developer_id).toBe(dev.developerId);
  });

  it('run_commerce_runtime runs the loop on a worker; get_runtime reads it; compact by default', async () => {
    const product = await stockedProduct(api.db);
    const tag = `mcp${Math.random().toString(36).slice(2, 8)}`;
    const res = await withTestWorker({ ...api.config, publicBaseUrl: api.url }, api.db, async () => {
      const client = await connect(dev.apiKey);
      return tool(client, 'run_commerce_runtime', { intent: product.title, intent_tags: [tag], wait_s: 30 });
    });
    expect(res.isError, JSON.stringify(res.body)).toBe(false);
    const rt = res.body;
    expect(rt).toMatchObject({
      status: 'finished',
      audit_status: 'completed',
      proposal: { merchant_id: 'gateway-catalog' },
      match_token: { acceptance_state: 'accepted' },
    });
    expect(rt.steps.map((s: any) => s.kind)).toContain('mint_token');
    expect(rt.next_step).toContain('plan_checkout');
    const rest = await call(api.url, 'GET', `/v1/commerce-runtime/${rt.runtime_id}`, { token: dev.apiKey });
    expect(rest.status).toBe(200);
    expect(rest.body.runtime.match_token.match_token_id).toBe(rt.match_token.match_token_id);
    const client = await connect(dev.apiKey);
    const read = await tool(client, 'get_runtime', { runtime_id: rt.runtime_id, detail: 'full' });
    expect(read.body.full).toEqual(rest.body);
    expect(read.body.match_token).toEqual(rt.match_token);
    expect(JSON.stringify(rt).length * 3).toBeLessThan(JSON.stringify(read.body.full).length);
  });

  it('run_commerce_runtime past its wait bound returns the runtime id and status running', async () => {
    // No worker polls here, so the loop cannot finish within wait_s 0.
    const client = await connect(dev.apiKey);
    const res = await tool(client, 'run_commerce_runtime', { intent: 'a desk lamp', wait_s: 0 });
    expect(res.isError, JSON.stringify(res.body)).toBe(false);
    expect(res.body).toMatchObject({ status: 'running', match_token: null });
    expect(res.body.next_step).toContain('get_runtime');
    const rest = await call(api.url, 'GET', `/v1/commerce-runtime/${res.body.runtime_id}`, { token: dev.apiKey });
    expect(rest.status).toBe(200);
  });

  it('a business error is a tool result with isError, not a transport failure', async () => {
    const client = await connect(dev.apiKey);
    const res = await tool(client, 'get_match_session', { match_session_id: 'ms_does_not_exist' });
    expect(res.isError).toBe(true);
    expect(res.body).toMatchObject({ error: 'match_not_found' });
    expect(typeof res.body.message).toBe('string');
    const acc = await tool(client, 'accept_match', { match_session_id: 'ms_does_not_exist' });
    expect(acc).toMatchObject({ isError: true, body: { error: 'match_not_found' } });
    const chk = await tool(client, 'get_checkout', { checkout_id: 'chk_nothing' });
    expect(chk).toMatchObject({ isError: true, body: { error: 'checkout_not_found' } });
    const conf = await tool(client, 'confirm_checkout', {
      checkout_id: 'chk_nothing',
      consent_granted: true,
      consent_statement: 'yes',
      amount: 1,
      currency: 'USD',
    });
    expect(conf).toMatchObject({ isError: true, body: { error: 'checkout_not_found' } });
    const plan = await tool(client, 'plan_checkout', { match_token_id: 'mt_nothing', buyer_agent_id: 'b' });
    expect(plan).toMatchObject({ isError: true, body: { error: 'match_token_not_found' } });
    const rt = await tool(client, 'get_runtime', { runtime_id: 'rt_nothing' });
    expect(rt).toMatchObject({ isError: true, body: { error: 'runtime_not_found' } });
    // The connection still works afterwards.
    expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
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
    expect(raw.body).toMatchObject({ jsonrpc: '2.0', id: 7, result: { isError: true } });
    expect(JSON.parse(raw.body.result.content[0].text)).toMatchObject({ error: 'match_not_found' });
  });

  it('checks the scope per tool', async () => {
    const limited = await onboard(api.url, { scopes: ['match'] });
    const client = await connect(limited.apiKey);
    const rec = await tool(client, 'recommend', { intent: 'coffee grinder' });
    expect(rec).toMatchObject({ isError: true, body: { error: 'insufficient_scope' } });
    const got = await tool(client, 'get_match_session', { match_session_id: 'ms_does_not_exist' });
    expect(got.body.error).toBe('match_not_found');
  });

  it('401 without a valid key: the client shows "invalid API key"; a JSON-RPC error body and a WWW-Authenticate invalid_token header', async () => {
    for (const token of [undefined, 'cig_sk_not_a_real_key', dev.developerToken]) {
      // StreamableHTTPError carries the HTTP status as its code and quotes the body.
      await expect(connect(token)).rejects.toMatchObject({ code: 401, message: expect.stringContaining('invalid API key') });
    }
    const res = await call(api.url, 'POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32001, message: expect.stringMatching(/^invalid API key/), data: { error: 'invalid_api_key' } },
    });
    expect(res.body.message).toMatch(/^invalid API key/);
    const www = res.headers.get('www-authenticate')!;
    expect(www).toMatch(
      /^Bearer error="invalid_token", error_description="invalid API key", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"$/,
    );
  });

  it('serves protected-resource metadata that names the bearer header and no authorization server', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await call(api.url, 'GET', path);
      expect(res.status, path).toBe(200);
      expect(res.body).toMatchObject({ resource: `${api.config.publicBaseUrl}/mcp`, bearer_methods_supported: ['header'] });
      expect(res.body).not.toHaveProperty('authorization_servers');
      expect(res.body.authentication).toMatch(/API key/);
    }
  });

  it('the MCP Inspector CLI (--strict) lists every tool with no schema portability finding, and calls a tool with a bearer API key', async () => {
    // The Inspector keeps a server catalog in its home directory: a throwaway one per run.
    const home = await mkdtemp(join(tmpdir(), 'mcp-inspector-'));
    const inspectorAs = async (apiKey: string, ...args: string[]) => {
      try {
        const { stdout, stderr } = await promisify(execFile)(
          'node_modules/.bin/mcp-inspector',
          ['--cli', `${api.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${apiKey}`, '--format', 'json', ...args],
          { timeout: 60_000, env: { ...process.env, MCP_CATALOG_PATH: join(home, 'mcp.json'), HOME: home } },
        );
        return { code: 0, stdout, stderr };
      } catch (err) {
        const e = err as { code?: number; stdout?: string; stderr?: string };
        return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
      }
    };
    const inspector = (...args: string[]) => inspectorAs(dev.apiKey, ...args);
    try {
      // A wrong key: run non-interactively (--stored-auth-only, so it does not start an OAuth flow that
      // cannot finish), the Inspector shows the server's own message.
      const refused = await inspectorAs('cig_sk_not_a_key', '--method', 'tools/list', '--stored-auth-only');
      expect(refused.code).not.toBe(0);
      expect(`${refused.stdout}${refused.stderr}`).toContain('invalid API key');

      const listed = await inspector('--method', 'tools/list', '--strict');
      expect(listed.code, listed.stderr).toBe(0);
      // --strict prints every finding (errors and warnings) on stderr and adds them to the JSON envelope.
      expect(listed.stderr, listed.stderr).not.toMatch(/Warning|Error|portability/i);
      const envelope = JSON.parse(listed.stdout);
      expect(envelope.schemaFindings).toBeUndefined();
      expect(envelope.result.tools.map((t: { name: string }) => t.name).sort()).toEqual(TOOLS);
      for (const t of envelope.result.tools) expect(schemaProblems(t.inputSchema), t.name).toEqual([]);

      const called = await inspector(
        '--method',
        'tools/call',
        '--tool-name',
        'recommend',
        '--tool-arg',
        'intent=trail running shoes under $120',
        'limit=3',
      );
      expect(called.code, called.stderr).toBe(0);
      const result = JSON.parse(called.stdout).result;
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent.items.length).toBeGreaterThan(0);
      expect(result.structuredContent.next_step).toContain('accept_match');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 120_000);

  it('GET and DELETE are 405 (stateless server: no SSE stream, no sessions)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await call(api.url, method, '/mcp', { token: dev.apiKey, headers: { accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });
});

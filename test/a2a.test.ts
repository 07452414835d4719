import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { stockedProduct } from './helpers/catalog';
import { withTestWorker } from './helpers/worker';

/**
 * The A2A JSON-RPC endpoint (docs/A2A.md), driven through the official A2A JS SDK client: it reads
 * the gateway's (v0.3) agent card, picks its legacy JSON-RPC transport and calls POST /a2a with the
 * API key as bearer; a real worker runs the commerce runtime the call starts.
 */
const signingKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const ENV = { MATCH_TOKEN_SIGNING_KEY: signingKey };

let api: TestApi;
let dev: Onboarded;
let productTitle: string;

const letters = () => Array.from({ length: 8 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');
const get = (path: string, token = dev.apiKey) => call(api.url, 'GET', path, { token });

/**
 * fetch that presents `apiKey` as a bearer on every call (the agent card fetch included). The card
 * advertises PUBLIC_BASE_URL; this test server listens on an ephemeral port, so calls to the public
 * base are sent to it.
 */
const bearerFetch =
  (apiKey?: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    if (apiKey) headers.set('authorization', `Bearer ${apiKey}`);
    const url = String(input instanceof Request ? input.url : input);
    const target = url.startsWith(api.config.publicBaseUrl) ? api.url + url.slice(api.config.publicBaseUrl.length) : url;
    return fetch(target, { ...init, headers });
  };

async function a2aClient(apiKey?: string): Promise<Client> {
  const fetchImpl = bearerFetch(apiKey);
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } }),
  });
  return factory.createFromUrl(api.url);
}

function dataMessage(data: Record<string, unknown>, metadata?: Record<string, unknown>): Message {
  return {
    messageId: `msg-${letters()}`,
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'data', value: data }, metadata: undefined, filename: '', mediaType: '' }],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

const send = (client: Client, message: Message, returnImmediately = false) =>
  client.sendMessage({
    tenant: '',
    message,
    configuration: { acceptedOutputModes: ['application/json'], taskPushNotificationConfig: undefined, returnImmediately },
    metadata: undefined,
  });

function asTask(result: Task | Message): Task {
  expect('status' in result, JSON.stringify(result)).toBe(true);
  return result as Task;
}

/** The runtime the task's single artifact carries. */
function runtimeOf(task: Task): any {
  expect(task.artifacts).toHaveLength(1);
  const content = task.artifacts[0]!.parts[0]!.content;
  expect(content?.$case).toBe('data');
  return (content as { value: { runtime: unknown } }).value.runtime;
}

const runtimeInput = () => ({ intent: { raw_query: productTitle, intent_tags: [letters()] } });

beforeAll(async () => {
  api = await startTestApi({ withTemporal: true, env: ENV });
  dev = await onboard(api.url);
  productTitle = (await stockedProduct(api.db)).title;
});
afterAll(() => api?.close());

describe('A2A agent card', () => {
  it('names the JSON-RPC endpoint, the run_commerce_runtime skill and bearer security', async () => {
    const raw = (await call(api.url, 'GET', '/.well-known/agent-card.json')).body;
    expect(raw).toMatchObject({ protocolVersion: '0.3.0', url: `${api.config.publicBaseUrl}/a2a`, preferredTransport: 'JSONRPC', security: [{ apiKey: [] }] });
    expect(raw.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    const skill = raw.skills.find((s: any) => s.id === 'run_commerce_runtime');
    expect(skill.description).toContain('message/send');

    // What the SDK makes of it: one JSON-RPC interface at /a2a, the same skill.
    const card = await (await a2aClient(dev.apiKey)).getAgentCard();
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url])).toContainEqual(['JSONRPC', `${api.config.publicBaseUrl}/a2a`]);
    expect(card.skills.map((s) => s.id)).toContain('run_commerce_runtime');
  });
});

describe('A2A message/send run_commerce_runtime', () => {
  it('returns a completed task whose artifact holds the runtime with intent, proposal, match session and token', async () => {
    const client = await a2aClient(dev.apiKey);
    const task = asTask(
      await withTestWorker(api.config, api.db, () => send(client, dataMessage({ operation: 'run_commerce_runtime', input: runtimeInput() }))),
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.status?.timestamp).toEqual(expect.any(String));
    const rt = runtimeOf(task);
    expect(task.id).toBe(rt.runtime_session.runtime_id);
    expect(task.contextId).toEqual(expect.any(String));
    expect(rt.runtime_trace.audit_status).toBe('completed');
    expect(rt.proposal).toMatchObject({ merchant_agent_id: 'gateway-catalog' });
    expect(rt.match_token).toMatchObject({ acceptance_state: 'accepted' });

    // Every linked record reads back through its own GET.
    expect((await get(`/v1/intents/${rt.intent.intent_id}`)).status).toBe(200);
    expect((await get(`/v1/proposals/${rt.proposal.proposal_id}`)).body.proposal.proposal_id).toBe(rt.proposal.proposal_id);
    expect((await get(`/v1/match/${rt.match_session.match_session_id}`)).status).toBe(200);
    expect((await get(`/v1/match-tokens/${rt.match_token.match_token_id}`)).body.match_token.match_token_id).toBe(rt.match_token.match_token_id);
    const rest = await get(`/v1/commerce-runtime/${task.id}`);
    expect(rest.body.runtime.match_token.match_token_id).toBe(rt.match_token.match_token_id);

    // tasks/get reads the same task back from the database, in the same context.
    const again = await client.getTask({ tenant: '', id: task.id });
    expect(again).toMatchObject({ id: task.id, contextId: task.contextId });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(runtimeOf(again).match_token.match_token_id).toBe(rt.match_token.match_token_id);
  });

  it('past the wait bound answers a working task; tasks/get polls it to completion (input as the data part, skill in metadata)', async () => {
    const client = await a2aClient(dev.apiKey);
    const message = { ...dataMessage(runtimeInput(), { skill: 'run_commerce_runtime' }), contextId: `ctx-${letters()}` };
    // No worker polls yet and returnImmediately (blocking: false) means no wait at all.
    const working = asTask(await send(client, message, true));
    expect(working.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(working.contextId).toBe(message.contextId);
    expect(runtimeOf(working).runtime_trace.audit_status).toBe('running');

    const done = await withTestWorker(api.config, api.db, async () => {
      for (let i = 0; i < 100; i++) {
        const t = await client.getTask({ tenant: '', id: working.id });
        if (t.status?.state !== TaskState.TASK_STATE_WORKING) return t;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error('the runtime did not finish');
    });
    expect(done).toMatchObject({ id: working.id, contextId: message.contextId });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(runtimeOf(done).match_token).not.toBeNull();
  });
});

describe('A2A errors', () => {
  it('an unknown operation is a JSON-RPC error (-32004) with the gateway envelope in data', async () => {
    const client = await a2aClient(dev.apiKey);
    await expect(send(client, dataMessage({ operation: 'launch_rockets', input: {} }))).rejects.toMatchObject({
      envelopeCode: -32004,
      data: { error: 'unknown_operation' },
    });
  });

  it('an invalid runtime body is -32602 Invalid params with the same codes as POST /v1/commerce-runtime', async () => {
    const client = await a2aClient(dev.apiKey);
    await expect(send(client, dataMessage({ operation: 'run_commerce_runtime', input: {} }))).rejects.toMatchObject({
      envelopeCode: -32602,
      data: { error: 'missing_intent', fields: ['intent'] },
    });
    await expect(send(client, dataMessage({ operation: 'run_commerce_runtime', input: { intent: { raw_query: 42 } } }))).rejects.toMatchObject({
      envelopeCode: -32602,
      data: { error: 'invalid_payload' },
    });
  });

  it('tasks/get of an unknown task, or of another developer’s, is -32001 TaskNotFound', async () => {
    const client = await a2aClient(dev.apiKey);
    await expect(client.getTask({ tenant: '', id: 'rt_missing' })).rejects.toMatchObject({ envelopeCode: -32001 });
    // A run of this developer, not visible to another developer's key.
    const started = asTask(await send(client, dataMessage({ operation: 'run_commerce_runtime', input: runtimeInput() }), true));
    const other = await a2aClient((await onboard(api.url)).apiKey);
    await expect(other.getTask({ tenant: '', id: started.id })).rejects.toMatchObject({ envelopeCode: -32001 });
  });

  it('without a valid API key: HTTP 401 with a JSON-RPC error body; a key without the runtime scope: 403', async () => {
    const anonymous = await a2aClient();
    await expect(send(anonymous, dataMessage({ operation: 'run_commerce_runtime', input: runtimeInput() }))).rejects.toMatchObject({
      data: { error: 'invalid_api_key' },
    });
    const rpc = { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'rt_x' } };
    const res = await call(api.url, 'POST', '/a2a', { body: rpc });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: expect.any(Number), data: { error: 'invalid_api_key' } } });
    expect((await call(api.url, 'POST', '/a2a', { body: rpc, token: 'cimg_not_a_key' })).status).toBe(401);

    const narrow = await onboard(api.url, { scopes: ['recommend'] });
    const forbidden = await call(api.url, 'POST', '/a2a', { body: rpc, token: narrow.apiKey });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.data.error).toBe('insufficient_scope');
  });

  it('JSON-RPC framing: parse error, invalid request, unknown method, streaming unsupported', async () => {
    const post = (body: unknown) => call(api.url, 'POST', '/a2a', { token: dev.apiKey, ...(typeof body === 'string' ? { raw: body } : { body }) });
    const parse = await post('{"jsonrpc":');
    expect(parse.status).toBe(200);
    expect(parse.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect((await post({ id: 3, method: 'tasks/get' })).body).toMatchObject({ id: 3, error: { code: -32600 } });
    expect((await post({ jsonrpc: '2.0', id: 'a', method: 'nope/nope' })).body).toMatchObject({ id: 'a', error: { code: -32601 } });
    expect((await post({ jsonrpc: '2.0', id: 4, method: 'message/stream', params: {} })).body).toMatchObject({ id: 4, error: { code: -32004 } });
    const text = await post({ jsonrpc: '2.0', id: 5, method: 'message/send', params: { message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } } });
    expect(text.body).toMatchObject({ id: 5, error: { code: -32602, data: { error: 'missing_operation' } } });
    expect((await call(api.url, 'GET', '/a2a', { token: dev.apiKey })).status).toBe(405);
  });
});

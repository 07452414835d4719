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
 * the gateway's agent card, negotiates its A2A 1.0 JSON-RPC interface (no legacy mode) and calls
 * POST /a2a with the API key as bearer; a real worker runs the commerce runtime the call starts.
 * The 0.3 method names the endpoint still answers are driven raw.
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
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
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

/** A 1.0 JSON-RPC error's data: one google.rpc.ErrorInfo whose metadata carries the gateway's envelope. */
const errorInfo = (metadata: Record<string, unknown>) => [
  expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', metadata: expect.objectContaining(metadata) }),
];

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
  it('declares one interface (JSON-RPC, A2A 1.0, at /a2a), what is served, the skills and bearer security', async () => {
    const raw = (await call(api.url, 'GET', '/.well-known/agent-card.json')).body;
    expect(raw.supportedInterfaces).toEqual([
      { url: `${api.config.publicBaseUrl}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ]);
    // No 0.3-only fields: they would make 1.x clients treat the card as legacy.
    for (const legacy of ['url', 'preferredTransport', 'additionalInterfaces', 'protocolVersion', 'security'])
      expect(raw).not.toHaveProperty(legacy);
    expect(raw.capabilities).toEqual({ streaming: false, pushNotifications: false, extendedAgentCard: false });
    expect(raw.securitySchemes.apiKey).toMatchObject({ httpAuthSecurityScheme: { scheme: 'bearer' } });
    expect(raw.securityRequirements).toEqual([{ schemes: { apiKey: { list: [] } } }]);
    expect(raw.skills.map((s: any) => s.id)).toEqual(['run_commerce_runtime', 'recommend', 'intent_matching', 'agentic_checkout']);

    // What the SDK makes of it with its defaults: that interface, at protocol 1.0, and the same skills.
    const client = await a2aClient(dev.apiKey);
    expect(client.protocolVersion).toBe('1.0');
    const card = await client.getAgentCard();
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion])).toEqual([
      ['JSONRPC', `${api.config.publicBaseUrl}/a2a`, '1.0'],
    ]);
    expect(card.securitySchemes.apiKey?.scheme).toMatchObject({ $case: 'httpAuthSecurityScheme', value: { scheme: 'bearer' } });
    expect(card.skills.map((s) => s.id)).toContain('run_commerce_runtime');
  });
});

describe('A2A message/send run_commerce_runtime', () => {
  it('returns a task waiting for the buyer (input-required) that names what was found; its artifact holds the runtime with intent, proposal, match session and token, compact', async () => {
    const client = await a2aClient(dev.apiKey);
    const task = asTask(
      await withTestWorker(api.config, api.db, () =>
        send(client, dataMessage({ operation: 'run_commerce_runtime', input: runtimeInput() })),
      ),
    );
    // The run stopped at awaiting_user_confirmation: the task waits for the buyer, and says for what.
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(task.status?.timestamp).toEqual(expect.any(String));
    const rt = runtimeOf(task);
    const said = task.status!.message!.parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join(' ');
    expect(said).toContain(
      `Found: ${rt.proposal.offer_title} from ${rt.proposal.merchant_agent_id} at ${rt.proposal.price.toFixed(2)} USD`,
    );
    expect(said).toContain('reply on this task with "buy it"');
    expect(said).not.toMatch(/finished|stage awaiting_user_confirmation/);
    // Compact: the members an agent acts on, not the run's steps.
    expect(rt.agent_steps).toBeUndefined();
    expect(rt.runtime_session.stage).toBe('awaiting_user_confirmation');
    expect(task.id).toBe(rt.runtime_session.runtime_id);
    expect(task.contextId).toEqual(expect.any(String));
    expect(rt.runtime_trace.audit_status).toBe('completed');
    expect(rt.proposal).toMatchObject({ merchant_agent_id: 'gateway-catalog' });
    expect(rt.match_token).toMatchObject({ acceptance_state: 'accepted' });

    // Every linked record reads back through its own GET.
    expect((await get(`/v1/intents/${rt.intent.intent_id}`)).status).toBe(200);
    expect((await get(`/v1/proposals/${rt.proposal.proposal_id}`)).body.proposal.proposal_id).toBe(rt.proposal.proposal_id);
    expect((await get(`/v1/match/${rt.match_session.match_session_id}`)).status).toBe(200);
    expect((await get(`/v1/match-tokens/${rt.match_token.match_token_id}`)).body.match_token.match_token_id).toBe(
      rt.match_token.match_token_id,
    );
    const rest = await get(`/v1/commerce-runtime/${task.id}`);
    expect(rest.body.runtime.match_token.match_token_id).toBe(rt.match_token.match_token_id);

    // tasks/get reads the same task back from the database, in the same context.
    const again = await client.getTask({ tenant: '', id: task.id });
    expect(again).toMatchObject({ id: task.id, contextId: task.contextId });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(runtimeOf(again).match_token.match_token_id).toBe(rt.match_token.match_token_id);
  });

  it('metadata.detail "full" answers the whole runtime document, and GetTask keeps answering it so', async () => {
    const client = await a2aClient(dev.apiKey);
    const message = dataMessage({ operation: 'run_commerce_runtime', input: runtimeInput() }, { detail: 'full' });
    const task = asTask(await withTestWorker(api.config, api.db, () => send(client, message)));
    const rt = runtimeOf(task);
    expect(rt.agent_steps.length).toBeGreaterThan(0);
    expect(rt.commerce_budget).toMatchObject({ require_user_confirmation_before_payment: true });
    expect(rt).toEqual((await get(`/v1/commerce-runtime/${task.id}`)).body.runtime);
    expect(runtimeOf(await client.getTask({ tenant: '', id: task.id })).agent_steps).toEqual(rt.agent_steps);
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
    expect(done.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(runtimeOf(done).match_token).not.toBeNull();
  });
});

describe('A2A errors', () => {
  it('an unknown operation is a JSON-RPC error (-32004) with the gateway envelope in data', async () => {
    const client = await a2aClient(dev.apiKey);
    await expect(send(client, dataMessage({ operation: 'launch_rockets', input: {} }))).rejects.toMatchObject({
      envelopeCode: -32004,
      data: errorInfo({ error: 'unknown_operation' }),
    });
  });

  it('an invalid runtime body is -32602 Invalid params with the same codes as POST /v1/commerce-runtime', async () => {
    const client = await a2aClient(dev.apiKey);
    await expect(send(client, dataMessage({ operation: 'run_commerce_runtime', input: {} }))).rejects.toMatchObject({
      envelopeCode: -32602,
      data: errorInfo({ error: 'missing_intent', fields: 'intent' }),
    });
    await expect(
      send(client, dataMessage({ operation: 'run_commerce_runtime', input: { intent: { raw_query: 42 } } })),
    ).rejects.toMatchObject({
      envelopeCode: -32602,
      data: errorInfo({ error: 'invalid_payload' }),
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
    // The SDK announces A2A-Version 1.0, so even the transport's 401 carries the 1.0 error shape.
    await expect(send(anonymous, dataMessage({ operation: 'run_commerce_runtime', input: runtimeInput() }))).rejects.toMatchObject({
      data: errorInfo({ error: 'invalid_api_key' }),
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
    const post = (body: unknown) =>
      call(api.url, 'POST', '/a2a', { token: dev.apiKey, ...(typeof body === 'string' ? { raw: body } : { body }) });
    const parse = await post('{"jsonrpc":');
    expect(parse.status).toBe(200);
    expect(parse.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect((await post({ id: 3, method: 'tasks/get' })).body).toMatchObject({ id: 3, error: { code: -32600 } });
    expect((await post({ jsonrpc: '2.0', id: 'a', method: 'nope/nope' })).body).toMatchObject({ id: 'a', error: { code: -32601 } });
    expect((await post({ jsonrpc: '2.0', id: 4, method: 'message/stream', params: {} })).body).toMatchObject({
      id: 4,
      error: { code: -32004 },
    });
    const file = await post({
      jsonrpc: '2.0',
      id: 5,
      method: 'message/send',
      params: {
        message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'file', file: { uri: 'https://example.com/x.png' } }] },
      },
    });
    expect(file.body).toMatchObject({ id: 5, error: { code: -32602, data: { error: 'missing_operation' } } });
    // Words with nothing to shop for are refused before anything runs.
    const empty = await post({
      jsonrpc: '2.0',
      id: 6,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm2', role: 'user', parts: [{ kind: 'text', text: 'the of and' }] } },
    });
    expect(empty.body).toMatchObject({ id: 6, error: { code: -32602, data: { error: 'missing_intent' } } });

    // The same over the 1.0 method names: errors carry a google.rpc.ErrorInfo list.
    expect((await post({ jsonrpc: '2.0', id: 7, method: 'SendStreamingMessage', params: {} })).body).toMatchObject({
      id: 7,
      error: { code: -32004, data: errorInfo({ error: 'unsupported_operation' }) },
    });
    expect((await post({ jsonrpc: '2.0', id: 8, method: 'GetTask', params: { id: 'rt_missing' } })).body).toMatchObject({
      id: 8,
      error: {
        code: -32001,
        data: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'TASK_NOT_FOUND',
            domain: 'a2a-protocol.org',
            metadata: expect.objectContaining({ error: 'runtime_not_found' }),
          },
        ],
      },
    });
    expect((await post({ jsonrpc: '2.0', id: 9, method: 'CancelTask', params: { id: 'rt_missing' } })).body).toMatchObject({
      id: 9,
      error: { code: -32002 },
    });
    expect((await post({ jsonrpc: '2.0', id: 10, method: 'GetExtendedAgentCard', params: {} })).body).toMatchObject({
      id: 10,
      error: { code: -32007 },
    });
    expect((await call(api.url, 'GET', '/a2a', { token: dev.apiKey })).status).toBe(405);
  });
});

describe('A2A skills: every advertised skill is callable', () => {
  /** A skill answers at once with a Message whose data part is the REST response body. */
  async function skill(client: Client, operation: string, input: Record<string, unknown>): Promise<any> {
    const result = await send(client, dataMessage({ operation, input }));
    expect('messageId' in result && !('status' in result), JSON.stringify(result)).toBe(true);
    const message = result as Message;
    expect(message.role).toBe(Role.ROLE_AGENT);
    expect(message.metadata).toMatchObject({ skill: operation });
    const content = message.parts[0]!.content;
    expect(content?.$case).toBe('data');
    return (content as { value: unknown }).value;
  }

  it('recommend → intent_matching (get_match_session, accept_match, create_match, create_intent) → agentic_checkout (plan, get, confirm)', async () => {
    const client = await a2aClient(dev.apiKey);
    const rec = await skill(client, 'recommend', { intent: productTitle, limit: 2 });
    expect(rec.items.length).toBeGreaterThan(0);
    expect(rec).toMatchObject({ intent: productTitle, match_session_id: expect.stringMatching(/^ms_/) });
    // The recommendation belongs to the caller's developer, like one made over REST.
    const stored = await api.db
      .selectFrom('match_sessions')
      .select('developer_id')
      .where('match_session_id', '=', rec.match_session_id)
      .executeTakeFirstOrThrow();
    expect(stored.developer_id).toBe(dev.developerId);

    const session = await skill(client, 'intent_matching', {
      action: 'get_match_session',
      match_session_id: rec.match_session_id,
      limit: 2,
    });
    expect(session.match_session.match_session_id).toBe(rec.match_session_id);
    const { match_token: token } = await skill(client, 'intent_matching', {
      action: 'accept_match',
      match_session_id: rec.match_session_id,
    });
    expect(token).toMatchObject({ match_session_id: rec.match_session_id, acceptance_state: 'accepted', signed_token: expect.any(String) });
    const again = await skill(client, 'intent_matching', { action: 'create_match', intent_id: rec.intent_id });
    expect(again.match_session).toMatchObject({ intent_id: rec.intent_id });
    const created = await skill(client, 'intent_matching', {
      action: 'create_intent',
      intent: { raw_query: `${productTitle} ${letters()}` },
    });
    expect(created.intent).toMatchObject({ intent_id: expect.stringMatching(/^int_/) });

    const planned = await withTestWorker(api.config, api.db, async () => {
      const { checkout } = await skill(client, 'agentic_checkout', {
        action: 'plan',
        buyer_agent_id: 'a2a-test-agent',
        intent_id: rec.intent_id,
        proposal_id: token.proposal_id,
        match_token_id: token.match_token_id,
        amount: token.amount,
        currency: token.currency,
      });
      // Consent not granted: refused with the REST code, nothing authorized.
      await expect(
        send(
          client,
          dataMessage({
            operation: 'agentic_checkout',
            input: {
              action: 'confirm',
              checkout_id: checkout.checkout_id,
              consent: { granted: false },
              match_token: token.signed_token,
              proposal_id: token.proposal_id,
              amount: checkout.amount,
              currency: checkout.currency,
            },
          }),
        ),
      ).rejects.toMatchObject({ envelopeCode: -32000, data: errorInfo({ error: 'consent_invalid', http_status: '409' }) });
      return checkout;
    });
    expect(planned).toMatchObject({ status: 'awaiting_confirmation', proposal_id: token.proposal_id, buyer_agent_id: 'a2a-test-agent' });
    const read = await skill(client, 'agentic_checkout', { action: 'get', checkout_id: planned.checkout_id });
    expect(read.checkout).toMatchObject({
      checkout_id: planned.checkout_id,
      status: 'awaiting_confirmation',
      payment_authorization_id: null,
    });
  });

  it('bad skill input is -32602 with the REST codes; a key without the skill scope is refused', async () => {
    const client = await a2aClient(dev.apiKey);
    await expect(send(client, dataMessage({ operation: 'recommend', input: {} }))).rejects.toMatchObject({
      envelopeCode: -32602,
      data: errorInfo({ error: 'invalid_payload', fields: 'input.intent' }),
    });
    await expect(send(client, dataMessage({ operation: 'intent_matching', input: { action: 'fly' } }))).rejects.toMatchObject({
      envelopeCode: -32602,
      data: errorInfo({ error: 'invalid_payload' }),
    });
    await expect(
      send(client, dataMessage({ operation: 'agentic_checkout', input: { action: 'get', checkout_id: 'chk_missing' } })),
    ).rejects.toMatchObject({
      envelopeCode: -32000,
      data: errorInfo({ error: 'checkout_not_found', http_status: '404' }),
    });
    const runtimeOnly = await a2aClient((await onboard(api.url, { scopes: ['runtime'] })).apiKey);
    await expect(send(runtimeOnly, dataMessage({ operation: 'recommend', input: { intent: 'socks' } }))).rejects.toMatchObject({
      data: errorInfo({ error: 'insufficient_scope' }),
    });
  });
});

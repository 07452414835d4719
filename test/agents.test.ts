import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import express from 'express';
import type { Server } from 'node:http';
import { agentCardHandler } from '@a2a-js/sdk/server/express';
import type { AgentCard } from '@a2a-js/sdk';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { json, startLoopback, type LoopbackServer } from './helpers/loopback';

let api: TestApi;
let base: string;
let dev: Onboarded;

beforeAll(async () => {
  api = await startTestApi({ withTemporal: false, env: { ALLOW_PRIVATE_ENDPOINTS: 'true', AGENT_CARD_FETCH_TIMEOUT_MS: '1000' } });
  base = api.url;
  dev = await onboard(base);
});
afterAll(() => api.close());

const uid = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(base, 'POST', path, { token: dev.apiKey, body, headers });
const get = (path: string) => call(base, 'GET', path, { token: dev.apiKey });

const paymentAgent = (agent_id = uid('pay')) => ({
  agent_id,
  agent_type: 'payment',
  endpoint: 'http://127.0.0.1:9/agent',
  protocols: ['a2a', 'ap2'],
  auth_methods: ['bearer'],
  capabilities: ['authorize', 'capture'],
  capability_profile: {
    payment: { payment_methods: ['card', 'wallet'], currencies: ['USD', 'EUR'], supports_mandates: true, max_amount: 5000 },
  },
  regions: ['US'],
  categories: ['payments'],
  metadata: { psp: 'acme' },
});

describe('commerce agent registry (docs/REGISTRIES.md)', () => {
  it('a keyed registration whose process died after the commit: the retry answers created with a working token, another request cannot', async () => {
    const body = paymentAgent();
    const key = uid('reg-key');
    const first = await post('/v1/agents/register', body, { 'idempotency-key': key });
    expect(first.status, first.text).toBe(201);
    // As if the process died between the commit and storing the answer: the claim in flight, its heartbeat stale.
    await api.db
      .updateTable('idempotency_keys')
      .set({ state: 'in_flight', response_status: null, response_body: null, locked_at: sql<Date>`now() - interval '1 minute'` })
      .where('owner_id', '=', dev.developerId)
      .where('idem_key', '=', key)
      .execute();
    const retry = await post('/v1/agents/register', body, { 'idempotency-key': key });
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body).toMatchObject({ created: true, agent_id: body.agent_id });
    const token = retry.body.registration_token as string;
    expect(token).not.toBe(first.body.registration_token);
    expect((await post(`/v1/agents/${body.agent_id}/heartbeat`, undefined, { 'x-agent-token': token })).status).toBe(200);
    expect(
      (await post(`/v1/agents/${body.agent_id}/heartbeat`, undefined, { 'x-agent-token': first.body.registration_token })).status,
    ).toBe(403);
    // Another keyed request for the same agent_id is an update and needs the token, as ever.
    expect((await post('/v1/agents/register', body, { 'idempotency-key': uid('other-key') })).status).toBe(401);
    // And the same key now replays the retry's answer.
    const replay = await post('/v1/agents/register', body, { 'idempotency-key': key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.registration_token).toBe(token);
  });

  it('register 201 with a token; fetch; re-register with X-Agent-Token 200; 401/403 without or with a wrong token', async () => {
    const body = paymentAgent();
    const created = await post('/v1/agents/register', body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'registered', created: true, agent_id: body.agent_id });
    expect(created.body.registration_token).toMatch(/^agt_/);
    const { agent_id, agent_type, endpoint, protocols, auth_methods, capabilities, capability_profile, regions, categories, metadata } =
      body;
    expect(created.body.agent).toEqual({
      agent_id,
      agent_type,
      endpoint,
      protocols,
      auth_methods,
      capabilities,
      capability_profile,
      regions,
      categories,
      metadata,
      agent_card_url: null,
      status: 'active',
      registered_at: expect.any(String),
      last_seen_at: null,
      deactivated_at: null,
    });
    const fetched = await get(`/v1/agents/${body.agent_id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual({ agent: created.body.agent });
    expect(fetched.text).not.toContain(created.body.registration_token);

    const update = { ...body, endpoint: 'http://127.0.0.1:9/v2' };
    const noToken = await post('/v1/agents/register', update);
    expect(noToken.status).toBe(401);
    expect(noToken.body.error).toBe('agent_token_required');
    const other = await post('/v1/agents/register', paymentAgent());
    const crossed = await post('/v1/agents/register', update, { 'x-agent-token': other.body.registration_token });
    expect(crossed.status).toBe(403);
    expect(crossed.body.error).toBe('invalid_registration_token');
    expect((await get(`/v1/agents/${body.agent_id}`)).body.agent.endpoint).toBe(body.endpoint);

    const updated = await post('/v1/agents/register', update, { 'x-agent-token': created.body.registration_token });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      status: 'updated',
      created: false,
      agent: { endpoint: 'http://127.0.0.1:9/v2', registered_at: created.body.agent.registered_at },
    });
  });

  it('rotate_registration_token replaces the agent token', async () => {
    const body = paymentAgent();
    const created = await post('/v1/agents/register', body);
    const rotated = await post(
      '/v1/agents/register',
      { ...body, rotate_registration_token: true },
      { 'x-agent-token': created.body.registration_token },
    );
    expect(rotated.status).toBe(200);
    expect(rotated.body.registration_token).not.toBe(created.body.registration_token);
    expect(
      (await post(`/v1/agents/${body.agent_id}/heartbeat`, undefined, { 'x-agent-token': created.body.registration_token })).status,
    ).toBe(403);
    expect(
      (await post(`/v1/agents/${body.agent_id}/heartbeat`, undefined, { 'x-agent-token': rotated.body.registration_token })).status,
    ).toBe(200);
  });

  it('400 missing_fields names agent_id, agent_type and endpoint', async () => {
    const res = await post('/v1/agents/register', { protocols: ['a2a'] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'missing_fields', fields: ['agent_id', 'agent_type', 'endpoint'] });
  });

  it('unknown kinds, bad types and capability profiles that do not fit the kind are 400s naming the field; nothing stored', async () => {
    const agent_id = uid('bad');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ agent_type: 'wizard' }, 'agent_type'],
      [{ endpoint: 'nope' }, 'endpoint'],
      [{ protocols: 'a2a' }, 'protocols'],
      [{ capability_profile: { payment: { currencies: ['usd'] } } }, 'capability_profile.payment.currencies.0'],
      [{ capability_profile: { payment: { max_amount: -5 } } }, 'capability_profile.payment.max_amount'],
      [{ capability_profile: { payment: { teleport: true } } }, 'capability_profile.payment'],
      [{ capability_profile: { logistics: { carriers: ['ups'] } } }, 'capability_profile.logistics'],
      [{ capability_profile: { misc: {} } }, 'capability_profile.misc'],
      [{ agent_id: 'has spaces' }, 'agent_id'],
    ];
    for (const [extra, field] of cases) {
      const res = await post('/v1/agents/register', { ...paymentAgent(agent_id), ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body.error).toBe('invalid_payload');
      expect(res.body.fields, `${JSON.stringify(extra)} → ${JSON.stringify(res.body)}`).toContain(field);
    }
    expect((await get(`/v1/agents/${agent_id}`)).status).toBe(404);
  });

  it('every kind registers with its own profile', async () => {
    const profiles: Record<string, Record<string, unknown>> = {
      merchant: {
        catalog_categories: ['shoes'],
        checkout_modes: ['agentic_checkout'],
        proposal_contract: 'committed',
        attribution_mode: 'match_token',
        currencies: ['USD'],
      },
      payment: { payment_methods: ['card'] },
      logistics: { carriers: ['ups'], service_levels: ['ground'], ship_to_regions: ['US'], tracking: true, max_weight_kg: 30 },
      creator: { channels: ['youtube'], content_formats: ['review'], audience_regions: ['US'], followers: 12000 },
      demand: { intent_sources: ['chat'], buyer_consent_modes: ['explicit'], max_budget: 200, currencies: ['USD'] },
      service_core: { services: ['fraud_screening'], sla_seconds: 5 },
    };
    for (const [agent_type, profile] of Object.entries(profiles)) {
      const res = await post('/v1/agents/register', {
        agent_id: uid(agent_type),
        agent_type,
        endpoint: 'http://127.0.0.1:9/a',
        capability_profile: { [agent_type]: profile },
      });
      expect(res.status, `${agent_type}: ${res.text}`).toBe(201);
    }
  });

  it('list filters by agent_type and status; unknown filter values are 400', async () => {
    const logi = await post('/v1/agents/register', { agent_id: uid('logi'), agent_type: 'logistics', endpoint: 'http://127.0.0.1:9/l' });
    await post(`/v1/agents/${logi.body.agent_id}/deactivate`, undefined, { 'x-agent-token': logi.body.registration_token });
    const all = await get('/v1/agents');
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(all.body.agents.length);
    const logistics = await get('/v1/agents?agent_type=logistics');
    expect(logistics.body.agents.length).toBeGreaterThan(0);
    expect(logistics.body.agents.every((a: any) => a.agent_type === 'logistics')).toBe(true);
    const inactiveLogistics = await get('/v1/agents?agent_type=logistics&status=inactive');
    expect(inactiveLogistics.body.agents.map((a: any) => a.agent_id)).toContain(logi.body.agent_id);
    expect(inactiveLogistics.body.agents.every((a: any) => a.status === 'inactive')).toBe(true);
    const active = await get('/v1/agents?status=active');
    expect(active.body.agents.map((a: any) => a.agent_id)).not.toContain(logi.body.agent_id);
    const bad = await get('/v1/agents?agent_type=wizard');
    expect(bad.status).toBe(400);
    expect(bad.body.fields).toEqual(['query.agent_type']);
  });

  it("heartbeat and deactivate: 401 agent_token_required, 403 for a wrong or another agent's token, 404 unknown agent", async () => {
    const a = await post('/v1/agents/register', paymentAgent());
    const b = await post('/v1/agents/register', paymentAgent());
    const id = a.body.agent_id;
    for (const action of ['heartbeat', 'deactivate']) {
      const missing = await post(`/v1/agents/${id}/${action}`);
      expect(missing.status).toBe(401);
      expect(missing.body.error).toBe('agent_token_required');
      expect((await post(`/v1/agents/${id}/${action}`, undefined, { 'x-agent-token': 'agt_wrong' })).status).toBe(403);
      expect((await post(`/v1/agents/${id}/${action}`, undefined, { 'x-agent-token': b.body.registration_token })).status).toBe(403);
      const ghost = await post(`/v1/agents/${uid('ghost')}/${action}`, undefined, { 'x-agent-token': a.body.registration_token });
      expect(ghost.status).toBe(404);
      expect(ghost.body.error).toBe('agent_not_found');
    }
    expect((await get(`/v1/agents/${id}`)).body.agent).toMatchObject({ status: 'active', last_seen_at: null });

    const hb = await post(`/v1/agents/${id}/heartbeat`, undefined, { 'x-agent-token': a.body.registration_token });
    expect(hb.status).toBe(200);
    expect(hb.body).toMatchObject({ status: 'ok', agent: { agent_id: id, last_seen_at: expect.any(String) } });
    const off = await post(`/v1/agents/${id}/deactivate`, undefined, { 'x-agent-token': a.body.registration_token });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ status: 'inactive', agent: { status: 'inactive', deactivated_at: expect.any(String) } });
    expect((await get(`/v1/agents/${b.body.agent_id}`)).body.agent.status).toBe('active');
  });

  it('GET of an unknown agent is 404 agent_not_found', async () => {
    const res = await get(`/v1/agents/${uid('ghost')}`);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('agent_not_found');
  });
});

/** A v1.0 card with an AP2 merchant role, in the A2A JS SDK's own type. */
function sdkCard(url: string, name = `Shoe Store ${uid('n')}`): AgentCard {
  return {
    name,
    description: 'Sells running shoes to shopper agents.',
    version: '2.1.0',
    supportedInterfaces: [
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${url}/a2a/v03`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ],
    provider: { url: 'https://shoes.example', organization: 'Shoe Co' },
    documentationUrl: 'https://shoes.example/docs',
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [
        {
          uri: 'https://github.com/google-agentic-commerce/ap2/tree/v0.1',
          description: 'AP2 roles',
          required: true,
          params: { roles: ['merchant'] },
        },
      ],
    },
    securitySchemes: {
      apiKey: {
        scheme: { $case: 'apiKeySecurityScheme', value: { description: 'API key header', location: 'header', name: 'X-API-Key' } },
      },
    },
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json'],
    skills: [
      {
        id: 'search_catalog',
        name: 'Search catalog',
        description: 'Finds shoes',
        tags: ['shopping', 'search'],
        examples: ['trail shoes under $100'],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
      {
        id: 'create_cart',
        name: 'Create cart',
        description: 'Builds a cart',
        tags: ['checkout'],
        examples: [],
        inputModes: ['application/json'],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  } as AgentCard;
}

/** The same agent as a v0.3 card (the SDK's legacy field set). */
function v03Card(url: string) {
  return {
    name: `Courier ${uid('n')}`,
    description: 'Ships parcels.',
    version: '0.9.0',
    protocolVersion: '0.3.0',
    url: `${url}/a2a`,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url: `${url}/a2a/rest`, transport: 'HTTP+JSON' }],
    capabilities: { streaming: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'quote_shipping', name: 'Quote shipping', description: 'Quotes a parcel', tags: ['logistics'] }],
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
  };
}

describe('A2A Agent Card import (POST /v1/agents/import-card)', () => {
  let cards: LoopbackServer;
  let sdkServer: Server;
  let sdkUrl: string;
  let sdkAgentCard: AgentCard;
  beforeAll(async () => {
    cards = await startLoopback((req, res) => {
      const path = req.url ?? '';
      if (path === '/v03.json') return json(res, 200, v03Card(cards.url));
      if (path === '/broken.json') return json(res, 200, '{"name": "half a card",');
      if (path === '/huge.json') return json(res, 200, JSON.stringify({ ...v03Card(cards.url), padding: 'x'.repeat(300 * 1024) }));
      if (path === '/no-skills.json') return json(res, 200, { ...v03Card(cards.url), skills: undefined });
      if (path === '/hop') {
        res.writeHead(302, { location: '/v03.json' });
        return res.end();
      }
      if (path === '/loop') {
        res.writeHead(302, { location: '/loop' });
        return res.end();
      }
      if (path === '/slow.json') return; // never answers
      json(res, 404, { error: 'not found' });
    });
    // The official A2A JS SDK serving a card; A2A-Version picks v1.0 or the v0.3 compat shape.
    const app = express();
    app.use(
      '/.well-known/agent-card.json',
      agentCardHandler({ agentCardProvider: async () => sdkAgentCard, legacyCompat: { enabled: true } }),
    );
    sdkServer = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    sdkUrl = `http://127.0.0.1:${(sdkServer.address() as { port: number }).port}`;
    sdkAgentCard = sdkCard(sdkUrl);
  });
  afterAll(async () => {
    await cards.close();
    await new Promise((r) => {
      sdkServer.close(r);
      sdkServer.closeAllConnections();
    });
  });

  it('imports a v1.0 card served by the A2A JS SDK: skills, interfaces, security schemes and the AP2 role are mapped', async () => {
    const url = `${sdkUrl}/.well-known/agent-card.json`;
    const res = await post('/v1/agents/import-card', { agent_card_url: url, regions: ['US'] });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ created: true, registration_token: expect.stringMatching(/^agt_/) });
    const agent = res.body.agent;
    expect(agent).toMatchObject({
      agent_type: 'merchant', // from the AP2 role
      endpoint: `${sdkUrl}/a2a/jsonrpc`,
      agent_card_url: url,
      protocols: ['a2a', 'ap2'],
      auth_methods: ['apiKey'],
      capabilities: ['search_catalog', 'create_cart'],
      regions: ['US'],
      status: 'active',
    });
    expect(agent.agent_id).toMatch(/^a2a-127-0-0-1-shoe-store-/);
    const a2a = agent.capability_profile.a2a;
    expect(a2a).toMatchObject({
      card_version: '1.0',
      name: sdkAgentCard.name,
      version: '2.1.0',
      provider: { organization: 'Shoe Co' },
      documentation_url: 'https://shoes.example/docs',
      ap2_roles: ['merchant'],
      streaming: true,
      push_notifications: false,
      security_schemes: [{ name: 'apiKey', type: 'apiKey', description: 'API key header' }],
      interfaces: [
        { url: `${sdkUrl}/a2a/jsonrpc`, protocol_binding: 'JSONRPC', protocol_version: '1.0' },
        { url: `${sdkUrl}/a2a/v03`, protocol_binding: 'JSONRPC', protocol_version: '0.3' },
      ],
    });
    expect(a2a.skills[0]).toEqual({
      id: 'search_catalog',
      name: 'Search catalog',
      description: 'Finds shoes',
      tags: ['shopping', 'search'],
      examples: ['trail shoes under $100'],
      input_modes: ['text/plain', 'application/json'],
      output_modes: ['application/json'],
    });
    expect(a2a.skills[1].input_modes).toEqual(['application/json']);
    expect(a2a.extensions[0]).toMatchObject({ uri: expect.stringContaining('ap2'), required: true, params: { roles: ['merchant'] } });
    expect((await get(`/v1/agents/${agent.agent_id}`)).body.agent).toEqual(agent);

    // Importing the same card again is an update of that agent: it needs the agent's token.
    expect((await post('/v1/agents/import-card', { agent_card_url: url })).status).toBe(401);
    const again = await post('/v1/agents/import-card', { agent_card_url: url }, { 'x-agent-token': res.body.registration_token });
    expect(again.status).toBe(200);
    expect(again.body.created).toBe(false);
  });

  it("imports the SDK's v0.3 compat card (inline) and a v0.3 card fetched through a redirect", async () => {
    const compat = await fetch(`${sdkUrl}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '0.3' } }).then(
      (r) => r.json() as Promise<any>,
    );
    expect(compat.protocolVersion).toBe('0.3');
    const inline = await post('/v1/agents/import-card', { agent_card: compat, agent_id: uid('compat') });
    expect(inline.status, inline.text).toBe(201);
    expect(inline.body.agent).toMatchObject({ agent_type: 'merchant', endpoint: `${sdkUrl}/a2a/v03`, agent_card_url: null });
    expect(inline.body.agent.capability_profile.a2a).toMatchObject({
      card_version: '0.3',
      security_schemes: [{ name: 'apiKey', type: 'apiKey' }],
    });

    const fetched = await post('/v1/agents/import-card', { agent_card_url: `${cards.url}/hop`, agent_type: 'logistics' });
    expect(fetched.status, fetched.text).toBe(201);
    expect(fetched.body.agent).toMatchObject({
      agent_type: 'logistics',
      endpoint: `${cards.url}/a2a`,
      agent_card_url: `${cards.url}/hop`,
      protocols: ['a2a'],
      auth_methods: ['http'],
      capabilities: ['quote_shipping'],
    });
    expect(fetched.body.agent.capability_profile.a2a.interfaces).toEqual([
      { url: `${cards.url}/a2a`, protocol_binding: 'JSONRPC', protocol_version: '0.3.0' },
      { url: `${cards.url}/a2a/rest`, protocol_binding: 'HTTP+JSON', protocol_version: null },
    ]);
  });

  it('the gateway can import its own published Agent Card by URL', async () => {
    const url = `${base}/.well-known/agent-card.json`;
    const res = await post('/v1/agents/import-card', { agent_card_url: url, agent_id: uid('self') });
    expect(res.status, res.text).toBe(201);
    expect(res.body.agent).toMatchObject({
      agent_type: 'service_core',
      endpoint: `${api.config.publicBaseUrl}/a2a`,
      auth_methods: ['http'],
      agent_card_url: url,
    });
    expect(res.body.agent.capabilities).toEqual(expect.arrayContaining(['recommend', 'intent_matching', 'agentic_checkout']));
  });

  it('fetch failures are 502 agent_card_fetch_failed with the reason: 404, malformed JSON, oversized, redirect loop, timeout', async () => {
    const cases: Array<[string, string]> = [
      ['/missing.json', 'bad_status'],
      ['/broken.json', 'invalid_json'],
      ['/huge.json', 'too_large'],
      ['/loop', 'too_many_redirects'],
      ['/slow.json', 'timeout'],
    ];
    for (const [path, reason] of cases) {
      const res = await post('/v1/agents/import-card', { agent_card_url: `${cards.url}${path}` });
      expect(res.status, path).toBe(502);
      expect(res.body, path).toMatchObject({ error: 'agent_card_fetch_failed', reason });
    }
  });

  it('invalid cards are 400 invalid_agent_card naming the member; neither or both sources is a 400', async () => {
    const noSkills = await post('/v1/agents/import-card', { agent_card_url: `${cards.url}/no-skills.json` });
    expect(noSkills.status).toBe(400);
    expect(noSkills.body).toMatchObject({ error: 'invalid_agent_card', fields: ['agent_card.skills'] });

    const { supportedInterfaces: _omit, ...noInterfaces } = sdkCard('http://127.0.0.1:9') as unknown as Record<string, unknown>;
    const v10 = await post('/v1/agents/import-card', { agent_card: { ...noInterfaces, url: undefined } });
    expect(v10.status).toBe(400);
    expect(v10.body.error).toBe('invalid_agent_card');

    const badSkill = await post('/v1/agents/import-card', {
      agent_card: { ...v03Card('http://127.0.0.1:9'), skills: [{ id: 's', name: 'S', description: 'd', tags: 'x' }] },
    });
    expect(badSkill.body).toMatchObject({ error: 'invalid_agent_card', fields: ['agent_card.skills.0.tags'] });

    const neither = await post('/v1/agents/import-card', { agent_type: 'merchant' });
    expect(neither.status).toBe(400);
    expect(neither.body.error).toBe('missing_fields');
    const both = await post('/v1/agents/import-card', {
      agent_card: v03Card('http://127.0.0.1:9'),
      agent_card_url: `${cards.url}/v03.json`,
    });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('invalid_payload');
  });
});

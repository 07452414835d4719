import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactVerify, importJWK } from 'jose';
import { CompactSign } from 'jose';
import { z } from 'zod';
import { auth, koaPath, RouteRegistry } from '../api/routes/registry';
import { buildOpenApiDocument } from '../api/openapi';
import { requireRegistrationToken } from '../api/middleware/auth';
import { AppError } from '../src/errors';
import { translations } from '../api/openapi-locales';
import { call } from './helpers/http';
import { startTestApi, type TestApi } from './helpers/stack';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ withTemporal: false });
});
afterAll(() => api.close());

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function documentedRoutes(doc: any): string[] {
  return Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, ops]) =>
      Object.keys(ops)
        .filter((m) => HTTP_METHODS.includes(m))
        .map((m) => `${m.toUpperCase()} ${koaPath(path)}`),
    )
    .sort();
}

/** What the Koa router really serves, read from its layers (not from the registry). */
function servedRoutes(): string[] {
  return api.router.stack
    .flatMap((layer: any) => (layer.methods as string[]).filter((m) => m !== 'HEAD').map((m) => `${m} ${layer.path}`))
    .sort();
}

describe('/openapi.json', () => {
  it('is a valid OpenAPI 3.0.3 document, contract version 0.1.0', async () => {
    const res = await call(api.url, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.0.3');
    expect(res.body.info.version).toBe('0.1.0');
    await SwaggerParser.validate(structuredClone(res.body));
  });

  it('lists exactly the routes the router serves', async () => {
    const doc = (await call(api.url, 'GET', '/openapi.json')).body;
    expect(documentedRoutes(doc)).toEqual(servedRoutes());
  });

  it('marks the revoke operation deprecated and describes every credential', async () => {
    const doc = (await call(api.url, 'GET', '/openapi.json')).body;
    expect(doc.paths['/v1/developers/keys/{keyId}/revoke'].post.deprecated).toBe(true);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'AgentToken',
      'ApiKey',
      'DeveloperToken',
      'MerchantToken',
      'SupplyKey',
    ]);
    expect(doc.components.securitySchemes.SupplyKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Supply-Key' });
    expect(doc.paths['/v1/developers/keys'].post.security).toEqual([{ DeveloperToken: [] }]);
    expect(doc.paths['/v1/whoami'].get.security).toEqual([{ ApiKey: [] }]);
    expect(doc.paths['/v1/developers/keys/{keyId}/reveal'].post.responses['410']).toBeDefined();
    expect(doc.paths['/v1/developers/register'].post.requestBody.content['application/json'].schema).toBeDefined();
  });

  it('a nullable named schema really admits null (a runtime stopped before ranking has match_session: null)', async () => {
    const doc = (await call(api.url, 'GET', '/openapi.json')).body;
    const markers: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (!node || typeof node !== 'object') return;
      const allOf = (node as { allOf?: unknown[] }).allOf;
      if (allOf?.some((x: any) => x && Object.keys(x).length === 1 && x.nullable === true)) markers.push(path);
      for (const [k, v] of Object.entries(node)) walk(v, `${path}/${k}`);
    };
    walk(doc, '#');
    expect(markers).toEqual([]);
    const runtime = doc.components.schemas.CommerceRuntime.properties;
    for (const member of ['intent', 'proposal', 'match_session', 'match_token']) {
      expect(runtime[member], member).toMatchObject({ nullable: true, allOf: [{ $ref: expect.any(String) }] });
    }
  });

  it('a path parameter that cannot name anything is a documented 404 (payment authorization with a 101-character id)', async () => {
    const doc = (await call(api.url, 'GET', '/openapi.json')).body;
    const op = doc.paths['/v1/match-tokens/{matchTokenId}/payment-authorization'].post;
    expect(op.responses['404'].description).toContain('`not_found`');
    const { onboard } = await import('./helpers/console');
    const dev = await onboard(api.url);
    const res = await call(api.url, 'POST', `/v1/match-tokens/${'m'.repeat(101)}/payment-authorization`, { token: dev.apiKey, body: {} });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
    // Every operation with path parameters documents its 404.
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      if (!path.includes('{')) continue;
      for (const [method, o] of Object.entries<any>(ops)) expect(o.responses['404'], `${method} ${path}`).toBeDefined();
    }
  });

  it('says what the service enforces: the NUL rule, list and email patterns, required members, unknown members and query parameters', async () => {
    const doc = (await call(api.url, 'GET', '/openapi.json')).body;
    const schemas = doc.components.schemas;
    const intent = schemas[doc.paths['/v1/intents'].post.requestBody.content['application/json'].schema.$ref.split('/').pop()];
    // Free text: no NUL, and not blank (the service trims it and needs a character left).
    const rawQuery = new RegExp(intent.properties.raw_query.pattern);
    expect(rawQuery.test('shoes 👟')).toBe(true);
    for (const bad of ['', ' \t\u3000', 'sho\u0000es']) expect(rawQuery.test(bad), JSON.stringify(bad)).toBe(false);
    const proof = Object.fromEntries(doc.paths['/v1/proof-feed'].get.parameters.map((p: any) => [p.name, p.schema]));
    // The proof feed's intent is the same free text: the same declared rule.
    expect(proof.intent.pattern).toBe(intent.properties.raw_query.pattern);
    const products = new RegExp(proof.products.pattern, 'u');
    for (const ok of ['', ',', 'a', 'running shoes, cold brew', Array.from({ length: 10 }, () => 'x'.repeat(200)).join(',')]) {
      expect(products.test(ok), ok).toBe(true);
    }
    for (const bad of ['x'.repeat(201), Array.from({ length: 11 }, () => 'x').join(','), 'a\u0000'])
      expect(products.test(bad), bad).toBe(false);
    // Country and currency codes are accepted in any case and trimmed: the patterns say so too.
    const recommend = Object.fromEntries(doc.paths['/v1/recommend'].get.parameters.map((p: any) => [p.name, p.schema]));
    for (const pattern of [recommend.region.pattern, intent.properties.region.pattern]) {
      const region = new RegExp(pattern);
      for (const ok of ['US', 'us', ' gb ']) expect(region.test(ok), ok).toBe(true);
      for (const bad of ['', 'USA', 'u1', 'u s']) expect(region.test(bad), bad).toBe(false);
    }
    expect(new RegExp(schemas.BudgetRange.properties.currency.pattern).test('eur')).toBe(true);
    // A blank intent is schema-invalid, as it is a 400.
    expect(new RegExp(recommend.intent.pattern).test('\v')).toBe(false);
    // Ids: the pattern carries the length, and white space around is dropped (so admitted).
    const merchantId = new RegExp(schemas.MerchantRegisterRequest.properties.merchant_id.pattern);
    for (const ok of ['shop-1', ' shop.eu:1 ', 'x'.repeat(128)]) expect(merchantId.test(ok), ok).toBe(true);
    for (const bad of ['', ' ', 'a b', 'x'.repeat(129)]) expect(merchantId.test(bad), bad).toBe(false);
    const email = new RegExp(schemas.DeveloperRegisterRequest.properties.contact_email.pattern);
    expect(email.test('Dev.1+x@Example.com')).toBe(true);
    for (const bad of ['not-an-email', ' a@b.co', 'a..b@b.co', 'a@b']) expect(email.test(bad), bad).toBe(false);
    expect(schemas.DecisionEventRequest.required).toContain('event_type');
    expect(schemas.IntentMandateSignBody.additionalProperties).toBe(false);
    expect(doc.paths['/v1/commerce-runtime'].post.requestBody.required).toBe(true);
    // Every operation documents invalid_query, except the shopper-facing link that ignores extra parameters.
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, o] of Object.entries<any>(ops)) {
        const documented = (o.responses['400']?.description ?? '').includes('`invalid_query`');
        expect(documented, `${method} ${path}`).toBe(path !== '/r/{recId}');
      }
    }
  });

  it('states the rules across members it can (oneOf, anyOf, patterns) and names the rest in descriptions', async () => {
    const doc = (await call(api.url, 'GET', '/openapi.json')).body;
    const ajv = new Ajv({ strict: false, allErrors: true });
    // Each request schema judged as the document states it, its $refs resolved inside the document.
    // OpenAPI 3.0's dialect in JSON Schema's: `nullable` without a `type` (as in `additionalProperties:
    // {nullable: true}`) adds nothing, and a boolean `exclusiveMinimum` qualifies `minimum`.
    const components = JSON.parse(JSON.stringify(doc.components), (_k, v) => {
      if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
      if ('nullable' in v && !('type' in v)) delete v.nullable;
      for (const [bound, exclusive] of [
        ['minimum', 'exclusiveMinimum'],
        ['maximum', 'exclusiveMaximum'],
      ] as const) {
        if (v[exclusive] === true) [v[exclusive], v[bound]] = [v[bound], undefined];
        else if (v[exclusive] === false) delete v[exclusive];
      }
      return JSON.parse(JSON.stringify(v));
    });
    const validator = (name: string) => ajv.compile({ $ref: `#/components/schemas/${name}`, components });
    const importCard = validator('AgentImportCardRequest');
    expect(importCard({ agent_card: {} })).toBe(true);
    expect(importCard({ agent_card_url: 'https://agent.example/card.json' })).toBe(true);
    expect(importCard({}), 'neither').toBe(false);
    expect(importCard({ agent_card: {}, agent_card_url: 'https://agent.example/card.json' }), 'both').toBe(false);
    const event = validator('DecisionEventRequest');
    const valid = [
      { event_type: 'pick' },
      { event_type: 'fulfilled', proposal_id: 'prop_1' },
      { event_type: 'confirm', match_token_id: 'mt_1' },
      { event_type: 'remix', product_id: 7, payload: { dimension: 'scene', value: ' rooftop at dusk ' } },
      { event_type: 'view', payload: { agent_id: 'shopper-1', anything: [1] } },
    ];
    for (const body of valid) expect(event(body), JSON.stringify(event.errors)).toBe(true);
    const invalid = [
      { event_type: 'fulfilled' },
      { event_type: 'late_delivery', product_id: 7 },
      { event_type: 'remix', proposal_id: 'prop_1' },
      { event_type: 'remix', proposal_id: 'prop_1', payload: { dimension: 'price', value: 'lower' } },
      { event_type: 'remix', proposal_id: 'prop_1', payload: { dimension: 'scene', value: ' \t ' } },
      { event_type: 'remix', proposal_id: 'prop_1', payload: { dimension: 'scene', value: 'x'.repeat(201) } },
      { event_type: 'remix', payload: { dimension: 'scene', value: 'x' } },
      { event_type: 'pick', payload: { agent_id: ' ' } },
      { event_type: 'pick', merchant_id: 'm-1' },
    ];
    for (const body of invalid) expect(event(body), JSON.stringify(body)).toBe(false);
    // A blank merchant id in a path names nothing, and the pattern says so.
    for (const path of ['/v1/merchant/{merchantId}', '/v1/merchant/{merchantId}/sla', '/v1/merchant/{merchantId}/feeds/{feedId}']) {
      const param = Object.values<any>(doc.paths[path])[0].parameters.find((p: any) => p.name === 'merchantId');
      const pattern = new RegExp(param.schema.pattern);
      for (const ok of ['shop-1', ' shop-1']) expect(pattern.test(ok), `${path} ${JSON.stringify(ok)}`).toBe(true);
      for (const bad of ['', ' ', '\t\u3000', 'a\u0000']) expect(pattern.test(bad), `${path} ${JSON.stringify(bad)}`).toBe(false);
    }
    // What a schema cannot say is in a description: the NUL rule of open objects, rules across members.
    const intent = doc.components.schemas.IntentCreateRequest;
    expect(intent.properties.metadata.description).toMatch(/NUL \(U\+0000\)/);
    expect(doc.components.schemas.TimeWindow.description).toMatch(/Members beyond those listed are accepted.*NUL/);
    expect(doc.components.schemas.BudgetRange.description).toMatch(/`min` must not exceed `max`/);
    expect(doc.paths['/v1/intents'].post.description).toMatch(/budget_range\.min must not exceed budget_range\.max/);
    expect(doc.paths['/v1/decision-events'].post.description).toMatch(/remix value must differ from the current one/);
  });

  it('every integer a request carries states both bounds (an integer schema without them would admit what zod refuses past 2^53)', async () => {
    const doc = (await call(api.url, 'GET', '/openapi.json')).body;
    const unbounded: string[] = [];
    const seen = new Set<string>();
    const walk = (node: any, where: string): void => {
      if (!node || typeof node !== 'object') return;
      if (node.$ref) {
        const name = node.$ref.split('/').pop();
        if (!seen.has(name)) {
          seen.add(name);
          walk(doc.components.schemas[name], `${where}<${name}>`);
        }
        return;
      }
      if (node.type === 'integer' && (node.minimum === undefined || node.maximum === undefined)) unbounded.push(where);
      for (const [k, v] of Object.entries<any>(node.properties ?? {})) walk(v, `${where}.${k}`);
      walk(node.items, `${where}[]`);
      if (typeof node.additionalProperties === 'object') walk(node.additionalProperties, `${where}.*`);
      for (const k of ['allOf', 'anyOf', 'oneOf']) for (const v of node[k] ?? []) walk(v, where);
    };
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        for (const p of op.parameters ?? []) walk(p.schema, `${method} ${path} ${p.in}.${p.name}`);
        walk(op.requestBody?.content?.['application/json']?.schema, `${method} ${path} body`);
      }
    }
    expect(unbounded).toEqual([]);
  });

  it('links name real operations, their parameters and body members, and ids the source answer carries', async () => {
    const doc = (await call(api.url, 'GET', '/openapi.json')).body;
    const operations = new Map<string, any>();
    for (const ops of Object.values<any>(doc.paths)) for (const op of Object.values<any>(ops)) operations.set(op.operationId, op);
    const deref = (s: any): any => (s?.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s);
    /** The schema a JSON pointer reaches (array positions step into `items`), or undefined. */
    const reach = (schema: any, pointer: string): any =>
      pointer
        .split('/')
        .slice(1)
        .reduce((s: any, part: string) => {
          const node = deref(s);
          const inner = node?.allOf?.length === 1 ? deref(node.allOf[0]) : node;
          return /^\d+$/.test(part) ? inner?.items : inner?.properties?.[part];
        }, schema);
    const links: string[] = [];
    for (const op of operations.values()) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        for (const [name, link] of Object.entries<any>(response.links ?? {})) {
          const at = `${op.operationId} ${status} ${name}`;
          links.push(at);
          const target = operations.get(link.operationId);
          expect(target, at).toBeDefined();
          const source = response.content['application/json'].schema;
          const expressions: Array<[string, string]> = [];
          for (const [param, expr] of Object.entries<string>(link.parameters ?? {})) {
            const [where, paramName] = param.split('.');
            expect(
              target.parameters.some((p: any) => p.in === where && p.name === paramName),
              `${at}: ${param}`,
            ).toBe(true);
            expressions.push([param, expr]);
          }
          const body = deref(target.requestBody?.content['application/json'].schema);
          for (const [member, expr] of Object.entries<string>(link.requestBody ?? {})) {
            expect(body?.properties?.[member], `${at}: body ${member}`).toBeDefined();
            expressions.push([member, expr]);
          }
          for (const [what, expr] of expressions) {
            if (!expr.startsWith('$response.body#')) continue;
            expect(reach(source, expr.slice('$response.body#'.length)), `${at}: ${what} ← ${expr}`).toBeDefined();
          }
        }
      }
    }
    // The main chains: intent → match → accept → token → checkout → confirm, and the runtime.
    for (const expected of [
      'postV1Intents 201 MatchIntent',
      'postV1Match 201 AcceptMatch',
      'postV1MatchMatchSessionIdAccept 200 PlanCheckout',
      'postV1MatchMatchSessionIdAccept 200 AuthorizePayment',
      'postV1AgenticCheckout 201 ConfirmCheckout',
      'postV1CommerceRuntime 202 GetRuntime',
      'getV1Recommend 200 GetCard',
    ]) {
      expect(links).toContain(expected);
    }
  });

  it('zh-CN: the same paths, methods and field names, with translated descriptions', async () => {
    const en = (await call(api.url, 'GET', '/openapi.json')).body;
    const zhRes = await call(api.url, 'GET', '/openapi.json?locale=zh-CN');
    const zh = zhRes.body;
    expect(zhRes.headers.get('content-language')).toBe('zh-CN');
    await SwaggerParser.validate(structuredClone(zh));
    expect(documentedRoutes(zh)).toEqual(documentedRoutes(en));
    expect(Object.keys(zh.components.schemas)).toEqual(Object.keys(en.components.schemas));
    for (const [name, schema] of Object.entries<any>(en.components.schemas)) {
      expect(Object.keys(zh.components.schemas[name].properties ?? {}), name).toEqual(Object.keys(schema.properties ?? {}));
    }
    expect(zh.paths['/v1/developers/register'].post.summary).toBe('注册开发者账号');
    expect(zh.info.description).not.toBe(en.info.description);
    // Every operation summary is served translated (the keys are checked in test/unit/openapi-locales.test.ts).
    for (const [path, ops] of Object.entries<any>(en.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        expect(zh.paths[path][method].summary, `${method} ${path}`).toBe(translations['zh-CN'].operations?.[op.operationId]?.summary);
      }
    }
    // Unknown locales fall back to English; `zh` resolves to zh-CN.
    expect((await call(api.url, 'GET', '/openapi.json?locale=xx')).body.info.description).toBe(en.info.description);
    expect((await call(api.url, 'GET', '/openapi.json?locale=zh')).headers.get('content-language')).toBe('zh-CN');
  });
});

/** One request over a raw HTTP/1.1 exchange (node:http), so nothing on the client side trims what is sent. */
function rawRequest(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('431: a request line and headers past 16 KB', () => {
  it('is answered in the JSON error envelope (a 100 KB header, a very long query), and declared on every operation', async () => {
    const cases: Array<{ what: string; path: string; headers: Record<string, string> }> = [
      { what: '100 KB header', path: '/v1/whoami', headers: { 'x-padding': 'x'.repeat(100 * 1024) } },
      { what: 'long query', path: `/v1/recommend?intent=${'shoes+'.repeat(4000)}`, headers: {} },
    ];
    for (const c of cases) {
      const res = await rawRequest(api.url, c.path, c.headers);
      expect(res.status, c.what).toBe(431);
      expect(res.headers['content-type'], c.what).toBe('application/json; charset=utf-8');
      const body = JSON.parse(res.body);
      expect(body, c.what).toEqual({ error: 'request_header_fields_too_large', message: expect.stringMatching(/16 KB/) });
    }
    // The server still answers the next request (the refused one's connection was closed, not the server).
    expect((await call(api.url, 'GET', '/healthz')).status).not.toBe(431);
    const doc = (await call(api.url, 'GET', '/openapi.json')).body;
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        expect(op.responses['431']?.description, `${method} ${path}`).toMatch(/`request_header_fields_too_large`/);
        expect(op.responses['431'].content['application/json'].schema, `${method} ${path}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
  });

  it('a request the HTTP parser cannot read is a 400 in the same envelope', async () => {
    const { port } = new URL(api.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let got = '';
      socket.setEncoding('utf8');
      socket.on('data', (c) => (got += c));
      socket.on('end', () => resolve(got));
      socket.on('error', reject);
    });
    const [head, body] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toMatch(/content-type: application\/json; charset=utf-8/i);
    expect(JSON.parse(body!)).toEqual({ error: 'bad_request', message: expect.any(String) });
  });
});

describe('credential specs for later routes', () => {
  it('supply-key, supply-key-or-API-key and API-key-plus-merchant-token routes are documented with their security and error rows', async () => {
    const merchantToken = requireRegistrationToken({
      header: 'x-merchant-token',
      unknownPrincipal: () => new AppError(404, 'merchant_not_found', 'Merchant not found.'),
      verify: async () => ({ principalId: 'm', result: 'valid' }),
    });
    const r = new RouteRegistry()
      .add({
        method: 'get',
        path: '/v1/s',
        tag: 't',
        summary: 's',
        auth: auth.supply,
        responses: { 200: { description: 'ok' } },
        handler: () => ({ body: {} }),
      })
      .add({
        method: 'get',
        path: '/v1/sb',
        tag: 't',
        summary: 'sb',
        auth: auth.supplyOrApiKey('reports'),
        responses: { 200: { description: 'ok' } },
        handler: () => ({ body: {} }),
      })
      .add({
        method: 'post',
        path: '/v1/bm/{id}',
        tag: 't',
        summary: 'bm',
        params: z.object({ id: z.string() }),
        auth: auth.apiKeyAnd('registry', 'MerchantToken', merchantToken, [
          [401, 'missing_registration_token', 'Missing registration token.'],
          [403, 'invalid_registration_token', 'Invalid registration token.'],
        ]),
        responses: { 200: { description: 'ok' } },
        handler: () => ({ body: {} }),
      });
    const doc: any = buildOpenApiDocument(r.routes, { locale: 'en', serverUrl: 'http://127.0.0.1' });
    await SwaggerParser.validate(structuredClone(doc));
    expect(doc.paths['/v1/s'].get.security).toEqual([{ SupplyKey: [] }]);
    expect(doc.paths['/v1/s'].get.responses['401'].description).toContain('invalid_supply_key');
    expect(doc.paths['/v1/sb'].get.security).toEqual([{ SupplyKey: [] }, { ApiKey: [] }]);
    const bm = doc.paths['/v1/bm/{id}'].post;
    expect(bm.security).toEqual([{ ApiKey: [], MerchantToken: [] }]);
    expect(bm.responses['401'].description).toContain('invalid_api_key');
    expect(bm.responses['401'].description).toContain('missing_registration_token');
    expect(bm.responses['403'].description).toContain('invalid_registration_token');
  });
});

describe('static documents', () => {
  it('agent card: a valid A2A card with skills and bearer security', async () => {
    const res = await call(api.url, 'GET', '/.well-known/agent-card.json');
    expect(res.status).toBe(200);
    const card = res.body;
    // The A2A 1.0 AgentCard fields (test/a2a.test.ts checks what the official clients make of it).
    for (const field of [
      'name',
      'description',
      'supportedInterfaces',
      'version',
      'capabilities',
      'securitySchemes',
      'securityRequirements',
      'defaultInputModes',
      'defaultOutputModes',
      'skills',
    ]) {
      expect(card[field], field).toBeDefined();
    }
    expect(card.supportedInterfaces).toEqual([
      { url: `${api.config.publicBaseUrl}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ]);
    expect(card.skills.map((s: any) => s.id)).toContain('run_commerce_runtime');
    for (const s of card.skills)
      expect(s).toMatchObject({
        id: expect.any(String),
        name: expect.any(String),
        description: expect.any(String),
        tags: expect.any(Array),
      });
    expect(card.securitySchemes.apiKey).toMatchObject({ httpAuthSecurityScheme: { scheme: 'bearer' } });
  });

  it('jwks: the match-token public key verifies what the private key signs', async () => {
    const res = await call(api.url, 'GET', '/.well-known/jwks.json');
    expect(res.status).toBe(200);
    const [jwk] = res.body.keys;
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: expect.any(String) });
    expect(jwk.d).toBeUndefined();
    const signing = api.deps.signingKeys.matchToken;
    const jws = await new CompactSign(new TextEncoder().encode('{"t":1}'))
      .setProtectedHeader({ alg: 'EdDSA', kid: signing.kid })
      .sign(signing.privateKey);
    const { payload } = await compactVerify(jws, await importJWK(jwk, 'EdDSA'));
    expect(new TextDecoder().decode(payload)).toBe('{"t":1}');
  });

  it('jwks: the mandate RSA key is published only when configured', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const withMandate = await startTestApi({ withTemporal: false, env: { MANDATE_SIGNING_KEY: pem } });
    try {
      const keys = (await call(withMandate.url, 'GET', '/.well-known/jwks.json')).body.keys;
      expect(keys.map((k: any) => k.alg).sort()).toEqual(['EdDSA', 'RS256']);
      expect(keys.every((k: any) => k.d === undefined && k.p === undefined)).toBe(true);
    } finally {
      await withMandate.close();
    }
  });

  it('skill document and protocol note are served as Markdown; unknown skill or traversal → 404', async () => {
    const skill = await call(api.url, 'GET', '/skills/commerce-intent-matching/SKILL.md');
    expect(skill.status).toBe(200);
    expect(skill.headers.get('content-type')).toContain('text/markdown');
    expect(skill.text).toContain('name: commerce-intent-matching');
    const note = await call(api.url, 'GET', '/docs/INTENT_MATCHING_PROTOCOL.md');
    expect(note.status).toBe(200);
    expect(note.text).toContain('Intent-matching protocol v0.2');
    for (const path of ['/skills/nope/SKILL.md', '/skills/..%2F..%2Fpackage.json/SKILL.md', '/skills/../package.json']) {
      const res = await call(api.url, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
  });
});

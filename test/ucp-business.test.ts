import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverBusiness } from '../src/protocols/ucp/discovery';
import { searchUcpCatalog } from '../src/protocols/ucp/catalog';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { closedPort, json, startLoopback, type LoopbackServer } from './helpers/loopback';
import { startTestApi, type TestApi } from './helpers/stack';
import { UCP_SCHEMA, ucpSchemas } from './helpers/ucp-schemas';

/**
 * The gateway as a UCP business (docs/PROTOCOLS.md): its profile, catalog search and lookup over the
 * seeded catalog, every answer checked against the official UCP 2026-04-08 JSON Schemas; the gateway's
 * own UCP platform client pointed at the gateway discovers and searches it; negotiation failures are
 * the spec's errors; tenancy and hostile input as on every route.
 */

const schemas = ucpSchemas('2026-04-08');
const valid = (ref: string, data: unknown) => expect(schemas.validate(ref, 'response', 'read', data)).toEqual([]);
const SEARCH_RESPONSE = `${UCP_SCHEMA}/shopping/catalog_search.json#/$defs/search_response`;
const LOOKUP_RESPONSE = `${UCP_SCHEMA}/shopping/catalog_lookup.json#/$defs/lookup_response`;
const PRODUCT_RESPONSE = `${UCP_SCHEMA}/shopping/catalog_lookup.json#/$defs/get_product_response`;
const ERROR_RESPONSE = `${UCP_SCHEMA}/shopping/types/error_response.json`;
const BUSINESS_PROFILE = `${UCP_SCHEMA}/discovery/profile.json#/$defs/business_profile`;
const GIFT = 'a gift for a gardener under $40';

/**
 * A discovery or version failure is a transport error: the spec's status with the REST binding's
 * `{code, content, continue_url}` (overview.md, "Transport Bindings"; the spec gives it no JSON Schema),
 * inside the gateway's `{error, message}` envelope.
 */
function transportError(res: { status: number; body: any }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ error: code, message: expect.any(String), code, content: res.body.message, continue_url: api.url });
  expect(() => new URL(res.body.continue_url)).not.toThrow();
}

let api: TestApi;
let a: Onboarded;
let b: Onboarded;
let platforms: LoopbackServer;

/** Platform profiles a test names in UCP-Agent: a current one, one of an older version, one without catalog capabilities. */
function platformDoc(version: string, capabilities: string[]) {
  return {
    ucp: {
      version,
      services: { 'dev.ucp.shopping': [{ version, spec: 'https://ucp.dev/specification/overview', transport: 'rest' }] },
      capabilities: Object.fromEntries(capabilities.map((c) => [c, [{ version }]])),
      payment_handlers: {},
    },
  };
}

const agent = (path: string) => ({ 'ucp-agent': `profile="${platforms.url}${path}"` });
const post = (path: string, body: unknown, who: Onboarded = a, headers: Record<string, string> = agent('/current')) =>
  call(api.url, 'POST', path, { token: who.apiKey, body, headers });

beforeAll(async () => {
  // The gateway's public base URL is its real address, so the client can discover it and the gateway
  // can read its own platform profile when the client names it.
  const port = await closedPort();
  api = await startTestApi({ port, withTemporal: false, env: { PORT: String(port), ALLOW_PRIVATE_ENDPOINTS: 'true' } });
  [a, b] = await Promise.all([onboard(api.url), onboard(api.url)]);
  platforms = await startLoopback((req, res) => {
    const docs: Record<string, unknown> = {
      '/current': platformDoc('2026-04-08', ['dev.ucp.shopping.catalog.search', 'dev.ucp.shopping.catalog.lookup']),
      '/older': platformDoc('2026-01-11', ['dev.ucp.shopping.catalog.search']),
      '/checkout-only': platformDoc('2026-04-08', ['dev.ucp.shopping.checkout']),
    };
    const doc = docs[req.url ?? ''];
    if (req.url === '/not-json') json(res, 200, 'this is not a profile');
    else if (doc) json(res, 200, doc);
    else json(res, 404, { error: 'not_found' });
  });
});

afterAll(async () => {
  await platforms?.close();
  await api?.close();
});

describe('GET /.well-known/ucp', () => {
  it('is a 2026-04-08 business profile: the REST binding at PUBLIC_BASE_URL/ucp, catalog search and lookup, no checkout', async () => {
    const res = await call(api.url, 'GET', '/.well-known/ucp');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/public, max-age=\d+/);
    valid(BUSINESS_PROFILE, res.body);
    expect(res.body.ucp.version).toBe('2026-04-08');
    expect(res.body.ucp.services['dev.ucp.shopping']).toEqual([expect.objectContaining({ transport: 'rest', endpoint: `${api.url}/ucp` })]);
    expect(Object.keys(res.body.ucp.capabilities).sort()).toEqual(['dev.ucp.shopping.catalog.lookup', 'dev.ucp.shopping.catalog.search']);
  });
});

describe('the project’s UCP platform client pointed at the gateway', () => {
  it(`discovers the profile and searches "${GIFT}": products of the seeded catalog under $40`, async () => {
    const summary = await discoverBusiness({ allowPrivateEndpoints: true, timeoutMs: 10_000 }, api.url);
    expect(summary).toMatchObject({ version: '2026-04-08', rest_endpoint: `${api.url}/ucp`, catalog_search: true, catalog_lookup: true });
    const items = await searchUcpCatalog(
      // UCP-Agent names the gateway's own platform profile, which declares catalog search.
      { allowPrivateEndpoints: true, timeoutMs: 30_000, platformProfileUrl: `${api.url}/ucp/platform-profile`, bearer: a.apiKey },
      { merchant_id: 'gateway', endpoint: api.url, credential: null, profile: summary as unknown as Record<string, unknown> },
      { query: GIFT, limit: 5 },
    );
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      expect(item.currency).toBe('USD');
      expect(item.price_minor).toBeLessThanOrEqual(4000);
      expect(item.url).toMatch(new RegExp(`^${api.url}/r/rec_`));
    }
    // The ids are the catalog's: the product card of the first is the same product.
    const card = await call(api.url, 'GET', `/v1/products/${items[0]!.product_id}/card`, { token: a.apiKey });
    expect(card.status).toBe(200);
    expect(card.body.product.title).toBe(items[0]!.title.replace(/ \(.*\)$/, ''));
  });
});

describe('catalog search and lookup (REST binding)', () => {
  it('search answers UCP products with minor-unit prices, availability, seller and attributed links', async () => {
    const res = await post('/ucp/catalog/search', { query: GIFT, pagination: { limit: 4 } });
    expect(res.status).toBe(200);
    valid(SEARCH_RESPONSE, res.body);
    expect(res.body.ucp.capabilities).toEqual({ 'dev.ucp.shopping.catalog.search': [{ version: '2026-04-08' }] });
    expect(res.body.products.length).toBeGreaterThan(0);
    expect(res.body.products.length).toBeLessThanOrEqual(4);
    const p = res.body.products[0];
    expect(Number.isInteger(p.variants[0].price.amount)).toBe(true);
    expect(p.variants[0].price.amount).toBeLessThanOrEqual(4000);
    expect(p.variants[0].seller.name).toEqual(expect.any(String));
    expect(p.variants[0].availability).toEqual({ available: expect.any(Boolean), status: expect.any(String) });
    expect(p.metadata.merchant_id).toEqual(expect.any(String));
    // The search is a recommendation under the caller: its card link attributes.
    const card = await call(api.url, 'GET', `/v1/cards/${p.metadata.rec_id}`, { token: a.apiKey });
    expect(card.status).toBe(200);
    expect(card.body.product.id).toBe(p.id);
    // One page: a cursor is past the end.
    const next = await post('/ucp/catalog/search', { query: GIFT, pagination: { cursor: 'anything' } });
    valid(SEARCH_RESPONSE, next.body);
    expect(next.body).toMatchObject({ products: [], pagination: { has_next_page: false } });
  });

  it('a price filter (minor units) keeps only variants inside it', async () => {
    const res = await post('/ucp/catalog/search', { query: 'garden gloves', filters: { price: { max: 1500 } } });
    expect(res.status).toBe(200);
    valid(SEARCH_RESPONSE, res.body);
    for (const p of res.body.products) for (const v of p.variants) expect(v.price.amount).toBeLessThanOrEqual(1500);
  });

  it('lookup resolves product ids (featured) and variant ids (exact), and names unknown ids; get product answers one product', async () => {
    const found = await post('/ucp/catalog/search', { query: GIFT, pagination: { limit: 3 } });
    const p = found.body.products[0];
    // The seeded catalog's products have no feed variants: each product's own listing is its variant,
    // with the product's id; a product id resolves at product level (`featured`).
    const res = await post('/ucp/catalog/lookup', { ids: [p.id, '999999999', 'not-an-id', `${p.id}:no-such-variant`, p.id] });
    expect(res.status).toBe(200);
    valid(LOOKUP_RESPONSE, res.body);
    expect(res.body.products.map((x: any) => x.id)).toEqual([p.id]);
    const inputs = res.body.products[0].variants.flatMap((v: any) => v.inputs.map((i: any) => `${i.id}:${i.match}`));
    expect(inputs).toEqual([`${p.id}:featured`]);
    expect(res.body.products[0].variants[0].id).toBe(p.id);
    expect(res.body.messages).toEqual(
      ['999999999', 'not-an-id', `${p.id}:no-such-variant`].map((content) => ({ type: 'info', code: 'not_found', content })),
    );

    const one = await post('/ucp/catalog/product', { id: p.id });
    expect(one.status).toBe(200);
    valid(PRODUCT_RESPONSE, one.body);
    expect(one.body.product).toMatchObject({ id: p.id, title: p.title });

    const none = await post('/ucp/catalog/product', { id: '999999999' });
    expect(none.status).toBe(200);
    valid(ERROR_RESPONSE, none.body);
    expect(none.body.messages[0]).toMatchObject({ code: 'not_found', severity: 'unrecoverable' });
  });
});

describe('negotiation (UCP-Agent and version)', () => {
  it('a platform profile of an unsupported version is 422 version_unsupported; a missing or malformed UCP-Agent is 400 invalid_profile_url', async () => {
    const older = await post('/ucp/catalog/search', { query: GIFT }, a, agent('/older'));
    transportError(older, 422, 'version_unsupported');
    expect(older.body.content).toContain('2026-01-11 is not supported');
    expect(older.body.content).toContain('2026-04-08');

    for (const headers of [{}, { 'ucp-agent': 'profile=no-quotes' }, { 'ucp-agent': 'agent="x"' }] as Array<Record<string, string>>) {
      const res = await post('/ucp/catalog/search', { query: GIFT }, a, headers);
      transportError(res, 400, 'invalid_profile_url');
    }
  });

  it('an unreachable profile is 424 profile_unreachable; a profile without the capability is capabilities_incompatible', async () => {
    const port = await closedPort();
    const gone = await post('/ucp/catalog/lookup', { ids: ['1'] }, a, { 'ucp-agent': `profile="http://127.0.0.1:${port}/p"` });
    transportError(gone, 424, 'profile_unreachable');

    transportError(await post('/ucp/catalog/lookup', { ids: ['1'] }, a, agent('/nowhere')), 424, 'profile_unreachable');
    transportError(await post('/ucp/catalog/lookup', { ids: ['1'] }, a, agent('/not-json')), 422, 'profile_malformed');

    const incompatible = await post('/ucp/catalog/search', { query: GIFT }, a, agent('/checkout-only'));
    expect(incompatible.status).toBe(200);
    valid(ERROR_RESPONSE, incompatible.body);
    expect(incompatible.body.messages[0]).toMatchObject({ type: 'error', code: 'capabilities_incompatible', severity: 'unrecoverable' });
  });
});

describe('auth, tenancy and hostile input', () => {
  it('another developer sees the same public catalog, not the first one’s records; no key is 401', async () => {
    const query = `${GIFT} ${Date.now()}`;
    const [ra, rb] = await Promise.all([post('/ucp/catalog/search', { query }), post('/ucp/catalog/search', { query }, b)]);
    expect(rb.status).toBe(200);
    expect(rb.body.products.map((p: any) => p.id)).toEqual(ra.body.products.map((p: any) => p.id));
    const intents = await api.db.selectFrom('intents').select(['intent_id', 'developer_id']).where('raw_query', '=', query).execute();
    const mine = intents.find((i) => i.developer_id === a.developerId)!;
    expect(mine).toBeDefined();
    expect((await call(api.url, 'GET', `/v1/intents/${mine.intent_id}`, { token: a.apiKey })).status).toBe(200);
    expect((await call(api.url, 'GET', `/v1/intents/${mine.intent_id}`, { token: b.apiKey })).status).toBe(404);

    const anonymous = await call(api.url, 'POST', '/ucp/catalog/search', { body: { query }, headers: agent('/current') });
    expect(anonymous.status).toBe(401);
  });

  it('a huge query, bad JSON, wrong types, a missing id or too many ids are 4xx, never 5xx', async () => {
    const cases: Array<[string, { body?: unknown; raw?: string }]> = [
      ['/ucp/catalog/search', { body: { query: 'x'.repeat(10_000) } }],
      ['/ucp/catalog/search', { raw: '{"query": "gift' }],
      ['/ucp/catalog/search', { body: { query: 42 } }],
      ['/ucp/catalog/search', { body: { query: GIFT, pagination: { limit: 'ten' } } }],
      ['/ucp/catalog/search', { body: { query: GIFT, filters: { price: { max: -1 } } } }],
      ['/ucp/catalog/search', { body: { context: { address_country: 'USA' }, query: GIFT } }],
      ['/ucp/catalog/search', { body: {} }],
      ['/ucp/catalog/search', { body: [1, 2] }],
      ['/ucp/catalog/lookup', { body: { ids: 'abc' } }],
      ['/ucp/catalog/lookup', { body: {} }],
      ['/ucp/catalog/lookup', { body: { ids: Array.from({ length: 51 }, (_, i) => String(i + 1)) } }],
      ['/ucp/catalog/product', { body: { id: 7 } }],
      ['/ucp/catalog/product', { body: {} }],
    ];
    for (const [path, opts] of cases) {
      const res = await call(api.url, 'POST', path, { token: a.apiKey, headers: agent('/current'), ...opts });
      const what = `${path} ${opts.raw ?? JSON.stringify(opts.body).slice(0, 80)}`;
      expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, what).toBeLessThan(500);
      expect(res.body.error, what).toEqual(expect.any(String));
    }
  });
});

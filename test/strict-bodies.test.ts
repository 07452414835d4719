import type { Server } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRoutes } from '../api/app';
import type { AppState } from '../api/context';
import { jsonBody } from '../api/middleware/body';
import { errorEnvelope } from '../api/middleware/errors';
import { auth, RouteRegistry } from '../api/routes/registry';
import { call, uniqueEmail } from './helpers/http';
import { startTestApi, TEST_INVITE, TEST_SUPPLY_KEY, type TestApi } from './helpers/stack';

/**
 * A body member the route does not declare is refused with a 400 naming it, on every route and in
 * every nested object, except the objects the document declares open (free-form `metadata`,
 * `payload`…, and typed objects that keep the caller's own members verbatim); docs/CONTRACT.md#input-and-limits.
 */

let api: TestApi;
beforeAll(async () => {
  // No Temporal: a retry that got past validation answers 503 temporal_unavailable, so a 400 shows
  // the body was refused before anything ran.
  api = await startTestApi({ withTemporal: false });
});
afterAll(() => api.close());

const supply = { 'x-supply-key': TEST_SUPPLY_KEY };
const UNKNOWN = 'zz_not_a_member';

/**
 * The bodies that are another protocol's document, taken whole: the order events UCP businesses and
 * ACP sellers send (api/routes/protocols.ts). Their members are the protocol's, a newer version of it
 * may add some, and the signature covers the bytes as sent, so the document declares them open
 * (`additionalProperties` a schema) and the route takes any member. Every other body is closed.
 */
const PROTOCOL_BODIES = [
  'POST /ucp/webhooks/orders',
  'POST /acp/webhooks/{merchantId}/orders',
  // The gateway's UCP business surface (api/routes/ucp-business.ts): UCP request documents, open as
  // the UCP schemas declare them (context, filters, signals, attribution… take members a newer release adds).
  'POST /ucp/catalog/search',
  'POST /ucp/catalog/lookup',
  'POST /ucp/catalog/product',
];

type SchemaNode = Record<string, any>;

/** Every object schema reachable from the request bodies, by where it sits (`POST /v1/intents body.budget_range`). */
function requestObjects(doc: any): Array<{ where: string; node: SchemaNode }> {
  const named: Record<string, SchemaNode> = doc.components.schemas;
  const out: Array<{ where: string; node: SchemaNode }> = [];
  for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const root = op.requestBody?.content?.['application/json']?.schema;
      if (!root) continue;
      const stack: Array<{ node: SchemaNode; where: string; refs: Set<string> }> = [
        { node: root, where: `${method.toUpperCase()} ${path} body`, refs: new Set() },
      ];
      // Bounded: a $ref already on the way down is not followed again.
      while (stack.length) {
        const { node, where, refs } = stack.pop()!;
        if (!node || typeof node !== 'object') continue;
        if (typeof node.$ref === 'string') {
          const name = node.$ref.split('/').pop()!;
          if (!refs.has(name)) stack.push({ node: named[name]!, where, refs: new Set([...refs, name]) });
          continue;
        }
        // An object schema; a combinator's branch that only constrains the members of the object
        // around it (`anyOf: [{properties: {event_type: {enum}}, required: […]}]`) is not one.
        if (node.type === 'object') out.push({ where, node });
        for (const [k, v] of Object.entries<SchemaNode>(node.properties ?? {})) stack.push({ node: v, where: `${where}.${k}`, refs });
        if (node.items) stack.push({ node: node.items, where: `${where}[]`, refs });
        if (node.additionalProperties && typeof node.additionalProperties === 'object')
          stack.push({ node: node.additionalProperties, where: `${where}.*`, refs });
        for (const k of ['allOf', 'anyOf', 'oneOf'])
          for (const [i, v] of (node[k] ?? []).entries()) stack.push({ node: v, where: `${where}/${k}/${i}`, refs });
      }
    }
  }
  return out;
}

describe('unknown body members', () => {
  it('the document says additionalProperties: false on every request object, unless it declares the object open', async () => {
    const doc = (await call(api.url, 'GET', '/openapi.json')).body;
    const objects = requestObjects(doc);
    expect(objects.length).toBeGreaterThan(50);
    // Open means the document says so: additionalProperties is a schema (of any value), not left out.
    const undeclared = objects.filter(({ node }) => node.additionalProperties !== false && typeof node.additionalProperties !== 'object');
    expect(undeclared.map((o) => o.where)).toEqual([]);
    // Every top-level body but a protocol's document is closed; the open objects are free-form values
    // or typed objects that keep the caller's own members.
    const tops = objects.filter((o) => /body$/.test(o.where));
    expect(tops.length).toBe(Object.values<any>(doc.paths).flatMap((ops) => Object.values<any>(ops).filter((op) => op.requestBody)).length);
    for (const { where, node } of tops) {
      const open = PROTOCOL_BODIES.includes(where.replace(/ body$/, ''));
      expect(node.additionalProperties, where).toEqual(open ? expect.any(Object) : false);
    }
    const closed = objects.filter((o) => o.node.additionalProperties === false).map((o) => o.where);
    expect(closed).toEqual(
      expect.arrayContaining([
        'POST /v1/merchant/dispatch-queue/retry body',
        'POST /v1/agentic-checkout/{checkoutId}/confirm body.consent',
        'POST /v1/billing/settlement-preview body.attributed_orders[].commission_plan',
        'POST /v1/experience-feed body.taste_profile.price_band',
        'POST /v1/intents body.budget_range',
      ]),
    );
  });

  it('every route with a body refuses a member it does not declare with a 400 naming it', async () => {
    // Each route's own validation (the registry with the route's body schema), without what comes
    // before it (credentials, required-member and path checks) and with a handler that answers 200:
    // what is left to refuse the body is the schema.
    const probe = new RouteRegistry();
    const routes = buildRoutes().routes.filter((r) => r.body);
    expect(routes.length).toBeGreaterThan(20);
    for (const r of routes) {
      probe.add({ ...r, auth: auth.none, params: undefined, missingFields: undefined, handler: () => ({ body: { reached: true } }) });
    }
    const router = new Router<AppState>();
    probe.mount(router);
    const app = new Koa<AppState>();
    app.context.deps = api.deps;
    app.silent = true;
    app.use(errorEnvelope).use(jsonBody()).use(router.routes());
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      for (const r of routes) {
        const path = r.path.replace(/\{\w+\}/g, 'x');
        const res = await call(base, r.method.toUpperCase(), path, { body: { [UNKNOWN]: 1 } });
        const what = `${r.method.toUpperCase()} ${r.path}`;
        if (PROTOCOL_BODIES.includes(what)) {
          // Open as the document says: the member reaches the handler.
          expect(res.status, `${what}: ${res.text}`).toBe(200);
          continue;
        }
        expect(res.status, `${what}: ${res.text}`).toBe(400);
        expect(res.body.error, what).toBe(r.invalidCode ?? 'invalid_payload');
        expect(res.body.fields, what).toContain(UNKNOWN);
      }
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('POST /v1/merchant/dispatch-queue/retry with a member it does not know (merchantId for merchant_id) is a 400 naming it, not a replay of every merchant', async () => {
    const res = await call(api.url, 'POST', '/v1/merchant/dispatch-queue/retry', { headers: supply, body: { merchantId: 'nobody' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_payload', fields: ['merchantId'] });
    expect(res.body.message).toMatch(/Unknown field\(s\): merchantId/);
    // The same call without it gets past validation (here to the 503 of a gateway without Temporal).
    const all = await call(api.url, 'POST', '/v1/merchant/dispatch-queue/retry', { headers: supply, body: {} });
    expect(all.status).toBe(503);
    expect(all.body.error).toBe('temporal_unavailable');
  });

  it('a nested object names the member by its path; a free-form object takes any member', async () => {
    const preview = await call(api.url, 'POST', '/v1/billing/settlement-preview', {
      headers: supply,
      body: { merchant_id: 'm-1', attributed_orders: [{ amount: 10, commission_plan: { rate: 0.1, rat: 0.2 } }] },
    });
    expect(preview.status).toBe(400);
    expect(preview.body).toMatchObject({
      error: 'invalid_payload',
      fields: ['attributed_orders.0.commission_plan', 'attributed_orders.0.commission_plan.rat'],
    });
    expect(preview.body.message).toMatch(/Unknown field\(s\): attributed_orders\.0\.commission_plan\.rat/);

    const registration = {
      display_name: 'Strict Dev',
      contact_email: uniqueEmail('strict'),
      password: 'correct horse battery',
      invite_code: TEST_INVITE,
    };
    const typo = await call(api.url, 'POST', '/v1/developers/register', { body: { ...registration, compnay: 'Acme' } });
    expect(typo.status).toBe(400);
    expect(typo.body).toMatchObject({ error: 'invalid_payload', fields: ['compnay'] });
    const freeForm = await call(api.url, 'POST', '/v1/developers/register', {
      body: { ...registration, metadata: { compnay: 'Acme', nested: { any: ['thing'] } } },
    });
    expect(freeForm.status, freeForm.text).toBe(201);
    expect(freeForm.body.developer.metadata).toEqual({ compnay: 'Acme', nested: { any: ['thing'] } });
  });
});

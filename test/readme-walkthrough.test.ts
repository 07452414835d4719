import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, TEST_SUPPLY_KEY, type TestApi } from './helpers/stack';
import { withTestWorker } from './helpers/worker';

/**
 * What a developer following the README walk-through meets: answers that explain themselves (an
 * off-topic product in a proposal, a merchant id someone else holds, the dead-letter replay counts).
 */
let api: TestApi;
let dev: Onboarded;
const uid = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const post = (who: Onboarded, path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(api.url, 'POST', path, { token: who.apiKey, body, headers });

/** The first seeded product whose title (or else L2 category name) matches `pattern` (ILIKE). */
const productIn = (pattern: string, on: 'p.title' | 'c.name' = 'c.name') =>
  api.db
    .selectFrom('products as p')
    .innerJoin('categories as c', 'c.category_id', 'p.category_id')
    .select(['p.product_id', 'p.title', 'c.name'])
    .where(on, 'ilike', pattern)
    .where('p.inventory_qty', '>', 0)
    .orderBy('p.product_id')
    .limit(1)
    .executeTakeFirstOrThrow();

beforeAll(async () => {
  api = await startTestApi({ env: { ALLOW_PRIVATE_ENDPOINTS: 'true' } });
  dev = await onboard(api.url);
});
afterAll(() => api?.close());

describe('README walk-through answers', () => {
  it("a proposal whose product is outside the intent's categories is stored with a product_category_mismatch warning; a fitting one has none", async () => {
    const merchant_id = uid('shoes');
    const reg = await post(dev, '/v1/merchant/register', {
      merchant_id,
      agent_endpoint: 'http://127.0.0.1:9/agent',
      subscription_tags: [merchant_id],
    });
    expect(reg.status, reg.text).toBe(200);
    const intent = await post(dev, '/v1/intents', {
      raw_query: 'trail running shoes under $150 shipped to the US',
      intent_tags: [merchant_id],
    });
    expect(intent.status, intent.text).toBe(201);
    const intentId = intent.body.intent.intent_id;
    const offer = (product_id: number) =>
      post(
        dev,
        '/v1/proposals',
        { merchant_agent_id: merchant_id, intent_id: intentId, product_id, offer_title: 'Trail runner, 2-day delivery', price: 99.5 },
        { 'x-merchant-token': reg.body.registration_token },
      );

    const vacuum = await productIn('%robot vacuum%', 'p.title');
    const off = await offer(vacuum.product_id);
    expect(off.status, off.text).toBe(201);
    expect(off.body.proposal.product_id).toBe(vacuum.product_id);
    expect(off.body.warnings).toHaveLength(1);
    expect(off.body.warnings[0]).toMatchObject({ code: 'product_category_mismatch', intent_categories: ['Footwear > Running Shoes'] });
    expect(off.body.warnings[0].product_category).toContain(vacuum.name);
    expect(off.body.warnings[0].message).toContain(`Product ${vacuum.product_id}`);

    const shoe = await productIn('running shoes');
    const fits = await offer(shoe.product_id);
    expect(fits.status, fits.text).toBe(201);
    expect(fits.body.warnings).toEqual([]);

    // An intent naming no category cannot be judged: no warning.
    const vague = await post(dev, '/v1/intents', { raw_query: 'something nice', intent_tags: [merchant_id] });
    const unjudged = await post(
      dev,
      '/v1/proposals',
      {
        merchant_agent_id: merchant_id,
        intent_id: vague.body.intent.intent_id,
        product_id: vacuum.product_id,
        offer_title: 'Vacuum',
        price: 99.5,
      },
      { 'x-merchant-token': reg.body.registration_token },
    );
    expect(unjudged.status, unjudged.text).toBe(201);
    expect(unjudged.body.warnings).toEqual([]);
  });

  it('registering a merchant id another developer holds says the id is taken and needs its registration token', async () => {
    const merchant_id = uid('acme-shoes');
    const first = await post(dev, '/v1/merchant/register', { merchant_id, agent_endpoint: 'http://127.0.0.1:9/agent' });
    expect(first.status, first.text).toBe(200);
    const second = await onboard(api.url);
    const again = await post(second, '/v1/merchant/register', { merchant_id, agent_endpoint: 'http://127.0.0.1:9/other' });
    expect(again.status).toBe(401);
    expect(again.body.error).toBe('missing_registration_token');
    expect(again.body.message).toContain(`'${merchant_id}' is already registered`);
    expect(again.body.message).toMatch(/registration token \(X-Merchant-Token\)/);
    expect(again.body.message).toMatch(/another merchant_id/);
    const wrong = await post(
      second,
      '/v1/merchant/register',
      { merchant_id, agent_endpoint: 'http://127.0.0.1:9/other' },
      { 'x-merchant-token': 'mrt_not_it' },
    );
    expect(wrong.status).toBe(403);
    expect(wrong.body.message).toContain('already registered');
  });

  it('the dead-letter replay answer says in words what it did: for a merchant with nothing dead-lettered, that nothing was replayed and no workflow started', async () => {
    // (Other test files' dead letters share the database: a merchant of this test's own has none.)
    const merchant_id = uid('replay');
    const reg = await post(dev, '/v1/merchant/register', { merchant_id, agent_endpoint: 'http://127.0.0.1:9/agent' });
    expect(reg.status, reg.text).toBe(200);
    const res = await withTestWorker(api.config, api.db, () =>
      call(api.url, 'POST', '/v1/merchant/dispatch-queue/retry', { body: { merchant_id }, headers: { 'x-supply-key': TEST_SUPPLY_KEY } }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      state: 'dlq',
      status: 'nothing_to_replay',
      scheduled: 0,
      replay_workflow_id: null,
      merchant_id,
      remaining: 0,
      summary: `No delivery of merchant ${merchant_id} is dead-lettered: nothing was replayed and no workflow was started.`,
      replays: [],
    });
  });
});

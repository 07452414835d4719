import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { ProductCardDocument } from '../src/schemas/catalog';

let api: TestApi;
let dev: Onboarded;
const get = (path: string, headers: Record<string, string> = {}) => call(api.url, 'GET', path, { token: dev.apiKey, headers });

beforeAll(async () => {
  api = await startTestApi({ withTemporal: false, env: { ALLOW_PRIVATE_ENDPOINTS: 'true' } });
  dev = await onboard(api.url);
});
afterAll(() => api.close());

describe('cards and the click redirect (docs/CATALOG.md, docs/CONTRACT.md#recommendation)', () => {
  it('builds a fresh card for a product under a new rec_id, kept for GET /v1/cards/{recId}', async () => {
    const a = await get('/v1/products/1/card?channel=chat');
    expect(a.status, a.text).toBe(200);
    ProductCardDocument.parse(a.body);
    expect(a.body).toMatchObject({ product: { id: '1' }, channel: 'chat', rec_id: expect.stringMatching(/^rec_/) });
    expect(a.body.cta.primary.url).toBe(`${api.config.publicBaseUrl}/r/${a.body.rec_id}`);
    const b = await get('/v1/products/1/card');
    expect(b.body.rec_id).not.toBe(a.body.rec_id);

    expect((await get(`/v1/cards/${a.body.rec_id}`)).body).toEqual(a.body);
    expect((await get('/v1/cards/rec_unknown')).body).toMatchObject({ error: 'not_found' });
    for (const id of ['999999999', 'abc', '0', '-1', '1.5'])
      expect((await get(`/v1/products/${id}/card`)).body, id).toMatchObject({ error: 'product_not_found' });
    expect((await call(api.url, 'GET', '/v1/products/1/card')).status).toBe(401);
  });

  it('a click is recorded against the rec_id and redirected to the product page with the rec_id attached', async () => {
    const card = (await get('/v1/products/2/card?channel=email')).body;
    const product = await api.db.selectFrom('products').select('link').where('product_id', '=', 2).executeTakeFirstOrThrow();
    // The CTA works without an API key: it is what the shopper opens.
    const res = await call(api.url, 'GET', new URL(card.cta.primary.url).pathname, { headers: { 'user-agent': 'TestBrowser/1.0' } });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(location.searchParams.get('rec_id')).toBe(card.rec_id);
    expect(`${location.origin}${location.pathname}`).toBe(product.link);
    const clicks = await api.db.selectFrom('rec_clicks').selectAll().where('rec_id', '=', card.rec_id).execute();
    expect(clicks).toEqual([
      expect.objectContaining({ channel: 'email', user_agent_hash: createHash('sha256').update('TestBrowser/1.0').digest('hex') }),
    ]);
    expect((await call(api.url, 'GET', '/r/rec_nope')).status).toBe(404);
  });

  it("a creator's showcase: their best-converting products as cards; 404 for an unknown creator; limit 1..10", async () => {
    const creator = await api.db
      .selectFrom('videos')
      .innerJoin('creators', 'creators.creator_id', 'videos.creator_id')
      .select(['creators.username', 'creators.creator_id', (eb) => eb.fn.count<number>('videos.product_id').distinct().as('n')])
      .groupBy(['creators.username', 'creators.creator_id'])
      .having((eb) => eb.fn.count('videos.product_id').distinct(), '>=', 8)
      .limit(1)
      .executeTakeFirstOrThrow();
    const res = await get(`/v1/creators/${creator.username}/showcase`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ username: creator.username, count: 6 });
    const best = await api.db
      .selectFrom('videos')
      .select('product_id')
      .where('creator_id', '=', creator.creator_id)
      .orderBy('conversion_score', 'desc')
      .orderBy('gmv_cents', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(res.body.items[0].product.id).toBe(String(best.product_id));
    for (const item of res.body.items) expect((await get(`/v1/cards/${item.rec_id}`)).body).toEqual(item);
    expect((await get(`/v1/creators/${creator.username}/showcase?limit=2`)).body.count).toBe(2);
    expect((await get(`/v1/creators/${creator.username}/showcase?limit=11`)).status).toBe(400);
    expect((await get(`/v1/creators/${creator.username}/showcase?limit=0`)).status).toBe(400);
    expect((await get('/v1/creators/nobody-here/showcase')).body).toMatchObject({ error: 'creator_not_found' });
  });
});

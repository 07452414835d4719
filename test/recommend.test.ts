import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { closedPort } from './helpers/loopback';
import { startTestApi, type TestApi } from './helpers/stack';
import { RecommendResponse } from '../src/schemas/recommend';
import { CatalogSnapshotCache } from '../src/recommend/catalog-snapshot';
import { MATCH_TIERS, retrieve } from '../src/recommend/retrieval';
import { recommend, recommendDeps } from '../src/recommend/recommend';
import { RecommendationRecorder, type Recommendation } from '../src/recommend/record';
import { createDb, isDatabaseUnavailable } from '../src/db/connect';
import { understandShoppingIntent } from '../src/recommend/understand';
import type { ProductCardDocumentT } from '../src/schemas/catalog';

let api: TestApi;
let dev: Onboarded;
const recommendUrl = (params: Record<string, string>) => `/v1/recommend?${new URLSearchParams(params)}`;
const get = (path: string) => call(api.url, 'GET', path, { token: dev.apiKey });

beforeAll(async () => {
  api = await startTestApi({ withTemporal: false, env: { PORTAL_DEMO_RATE_LIMIT_PER_IP: '1000' } });
  dev = await onboard(api.url);
});
afterAll(() => api.close());

describe('GET /v1/recommend (docs/RECOMMEND.md)', () => {
  it('resolves the intent, returns full cards within budget, and leaves a usable intent, proposals and match session', async () => {
    const res = await get(recommendUrl({ intent: 'running shoes under $120', channel: 'chat' }));
    expect(res.status, res.text).toBe(200);
    const body = RecommendResponse.parse(res.body);
    expect(body).toMatchObject({
      intent: 'running shoes under $120',
      count: 3,
      proposal_count: 3,
      note: null,
      intent_source: 'natural_language',
      resolved_keywords: ['running', 'shoes'],
      resolved_categories: ['Footwear > Running Shoes'],
      retrieval: { intent_hits: 3, trending_fill: 0 },
    });
    expect(['raw_substring', 'strict', 'narrow']).toContain(body.match_tier);
    for (const item of body.items) {
      expect(item.product.category_l2).toBe('Running Shoes');
      expect(item.product.price_usd).toBeLessThanOrEqual(120);
      expect(item.channel).toBe('chat');
      expect(item.cta.primary.url).toBe(`${api.config.publicBaseUrl}/r/${item.rec_id}`);
      expect(item.hero_pitch.one_liner).toContain(item.product.title);
      // Issued: the card can be fetched back under its rec_id, exactly as returned.
      expect((await get(`/v1/cards/${item.rec_id}`)).body).toEqual(item);
    }
    expect(body.shopper_guide).toMatch(/You asked for "running shoes"/);
    expect(body.shopper_guide).toContain('at or under $120.00');

    // The intent is real and says what was read from the words.
    const intent = (await get(`/v1/intents/${body.intent_id}`)).body.intent;
    expect(intent).toMatchObject({
      raw_query: 'running shoes under $120',
      intent_tags: ['running', 'shoes'],
      budget_range: { min: null, max: 120, currency: 'USD' },
      source_channel: 'chat',
      resolution_source: 'recommend_parser',
    });
    expect(intent.resolution_summary).toContain('budget from "under $120"');
    // Answered here, so never fanned out to merchants by Intent.Surge (the sweep skips it).
    const stored = await api.db
      .selectFrom('intents')
      .select(['answered_by', 'surge_started_at'])
      .where('intent_id', '=', body.intent_id)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ answered_by: 'recommend', surge_started_at: null });

    // One catalog proposal per item, in item order, at catalog price.
    expect(body.proposals.map((p) => p.product_id)).toEqual(body.items.map((i) => Number(i.product.id)));
    for (const [i, p] of body.proposals.entries()) {
      expect(p).toMatchObject({
        intent_id: body.intent_id,
        merchant_agent_id: 'gateway-catalog',
        provenance: 'catalog',
        proposal_state: 'quoted',
        status: 'active',
        price: body.items[i]!.product.price_usd,
      });
    }
    const listed = (await get(`/v1/intents/${body.intent_id}/proposals`)).body;
    expect(listed.count).toBe(3);

    // The match session ranks them and shows the very same cards.
    const session = (await get(`/v1/match/${body.match_session_id}`)).body;
    expect(session.match_session).toMatchObject({ intent_id: body.intent_id, status: 'open' });
    const byRecId = (a: ProductCardDocumentT, b: ProductCardDocumentT) => a.rec_id.localeCompare(b.rec_id);
    expect([...session.items].sort(byRecId)).toEqual([...body.items].sort(byRecId));
    const accepted = await call(api.url, 'POST', `/v1/match/${body.match_session_id}/accept`, { token: dev.apiKey, body: {} });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.match_token).toMatchObject({ intent_id: body.intent_id, acceptance_state: 'accepted' });
    expect(body.proposals.map((p) => p.proposal_id)).toContain(accepted.body.match_token.proposal_id);

    // The CTA records the click and forwards with the rec_id.
    const click = await call(api.url, 'GET', new URL(body.items[0]!.cta.primary.url).pathname);
    expect(click.status).toBe(302);
    expect(new URL(click.headers.get('location')!).searchParams.get('rec_id')).toBe(body.items[0]!.rec_id);
  });

  it("one ranking: items[0], the shopper guide's top pick, the session's best proposal and accept's default are the same proposal", async () => {
    // Intents whose items the match score alone would order differently (cheaper or trending items further down).
    const intents = [
      'trail running shoes under $120',
      'running shoes under $120',
      'wireless headphones under $200',
      'yoga mat',
      'zzqx blorf',
    ];
    for (const intent of intents) {
      const res = await get(recommendUrl({ intent, limit: '5' }));
      expect(res.status, res.text).toBe(200);
      const body = res.body;
      expect(body.items.length, intent).toBeGreaterThan(0);
      const top = body.proposals[0];
      expect(top.product_id, intent).toBe(Number(body.items[0].product.id));
      if (body.retrieval.intent_hits > 0) expect(body.shopper_guide, intent).toContain(`Top pick: ${body.items[0].product.title}`);

      const session = (await get(`/v1/match/${body.match_session_id}?limit=10`)).body;
      expect(session.match_session.best_proposal_id, intent).toBe(top.proposal_id);
      expect(session.match_session.summary.ordered_by).toBe('recommendation');
      // The whole ranking follows the items, ranks 1..n.
      expect(
        session.ranked_proposals.map((p: any) => p.proposal_id),
        intent,
      ).toEqual(body.proposals.map((p: any) => p.proposal_id));
      expect(session.ranked_proposals.map((p: any) => p.rank)).toEqual(body.proposals.map((_: unknown, i: number) => i + 1));
      expect(session.items[0].rec_id, intent).toBe(body.items[0].rec_id);

      const accepted = await call(api.url, 'POST', `/v1/match/${body.match_session_id}/accept`, { token: dev.apiKey, body: {} });
      expect(accepted.status, accepted.text).toBe(200);
      expect(accepted.body.match_token.proposal_id, intent).toBe(top.proposal_id);
    }
  });

  it('limit is 1..10 with default 3; intent is required; region must be an ISO code', async () => {
    expect((await get(recommendUrl({ intent: 'yoga mat', limit: '10' }))).body.count).toBe(10);
    expect((await get(recommendUrl({ intent: 'yoga mat', limit: '1' }))).body.count).toBe(1);
    for (const limit of ['0', '11', 'abc', '2.5']) {
      const res = await get(recommendUrl({ intent: 'yoga mat', limit }));
      expect(res.status, limit).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_query', fields: ['query.limit'] });
    }
    for (const path of ['/v1/recommend', recommendUrl({ intent: '   ' }), recommendUrl({ limit: '3' })]) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_query', fields: ['query.intent'] });
      expect(res.body.message).toContain('intent is required');
    }
    expect((await get(recommendUrl({ intent: 'yoga mat', region: 'Germany' }))).body).toMatchObject({
      error: 'invalid_query',
      fields: ['query.region'],
    });
    // Nothing was stored for the rejected calls.
    const before = await api.db
      .selectFrom('intents')
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    await get(recommendUrl({ intent: 'yoga mat', limit: '0' }));
    expect(
      await api.db
        .selectFrom('intents')
        .select(sql<number>`count(*)::int`.as('n'))
        .executeTakeFirstOrThrow(),
    ).toEqual(before);
  });

  it('the region parameter wins over the text; both filter through compliance.region_allow', async () => {
    const byParam = (await get(recommendUrl({ intent: 'hiking boots in Canada', region: 'de', limit: '10' }))).body;
    expect(byParam).toMatchObject({ intent_source: 'natural_language+region_param' });
    for (const item of byParam.items as ProductCardDocumentT[])
      expect(item.compliance!.region_allow.length === 0 || item.compliance!.region_allow.includes('DE')).toBe(true);
    expect((await get(`/v1/intents/${byParam.intent_id}`)).body.intent.region).toBe('DE');

    const byText = (await get(recommendUrl({ intent: 'hiking boots shipped to Canada', limit: '10' }))).body;
    expect(byText.intent_source).toBe('natural_language');
    expect((await get(`/v1/intents/${byText.intent_id}`)).body.intent.region).toBe('CA');
    for (const item of byText.items as ProductCardDocumentT[])
      expect(item.compliance!.region_allow.length === 0 || item.compliance!.region_allow.includes('CA')).toBe(true);
    // The filter is real: some boots in the catalog do not ship to Canada, and none of them came back.
    const excluded = await api.db
      .selectFrom('products')
      .select('product_id')
      .where('category_l2', '=', 'Boots')
      .where(sql<boolean>`cardinality(region_allow) > 0 and not ('CA' = any(region_allow))`)
      .execute();
    expect(excluded.length).toBeGreaterThan(0);
    const ids = new Set((byText.items as ProductCardDocumentT[]).map((i) => Number(i.product.id)));
    expect(excluded.some((p) => ids.has(p.product_id))).toBe(false);
  });

  it('nonsense says match_tier none and offers trending suggestions, never pretending they match', async () => {
    const res = await get(recommendUrl({ intent: 'asdfgh' }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      match_tier: 'none',
      note: 'trending_suggested',
      count: 3,
      retrieval: { intent_hits: 0, trending_fill: 3 },
      resolved_categories: [],
    });
    expect(res.body.shopper_guide).toMatch(/Nothing in the catalog matches/);
    expect(res.body.shopper_guide).toMatch(/suggestions/);
    // Trending = most creator GMV over the catalog's last 90 days of videos.
    const { rows } = await sql<{ product_id: number }>`
      select v.product_id from videos v join products p using (product_id)
      where v.published_at >= (select max(published_at) - interval '90 days' from videos) and p.inventory_qty > 0
      group by v.product_id order by sum(v.gmv_cents) desc, v.product_id limit 3`.execute(api.db);
    expect(res.body.items.map((i: ProductCardDocumentT) => Number(i.product.id))).toEqual(rows.map((r) => r.product_id));
    for (const p of res.body.proposals) expect(p.proposal_score_inputs).toMatchObject({ retrieval: 'trending' });
  });

  it('a typo is found by the fuzzy tier', async () => {
    const res = await get(recommendUrl({ intent: 'runing shoes' }));
    expect(res.body.match_tier).toBe('fuzzy');
    expect(res.body.retrieval).toEqual({ intent_hits: 3, trending_fill: 0 });
    for (const item of res.body.items as ProductCardDocumentT[]) expect(item.product.title).toMatch(/Running Shoes/);
  });

  it('the broadened tier, run as branches that stop once full, answers in exactly the order of its one-sort definition', async () => {
    const snapshot = await new CatalogSnapshotCache(0).get(api.db);
    // Its definition: any of the words or any named category; the first-named term's categories
    // first, then the next term's, then the rest; then word rank, then popularity.
    const byOneSort = async (si: ReturnType<typeof understandShoppingIntent>, exclude: number[], limit: number) => {
      const groups = new Map<string, Set<number>>();
      for (const c of si.categories) {
        const ids = groups.get(c.term) ?? groups.set(c.term, new Set()).get(c.term)!;
        ids.add(c.category_id);
        if (c.level === 1) for (const child of snapshot.categories) if (child.parent_id === c.category_id) ids.add(child.category_id);
      }
      const g = [...groups.values()].map((ids) => [...ids]);
      const anyWord = sql.join(
        si.keywords.map((k) => sql`plainto_tsquery('english', ${k})`),
        sql` || `,
      );
      const whens = g.map((ids, i) => sql`when p.category_id = any(${ids}::int[]) then ${i}`);
      const { rows } = await sql<{ product_id: number }>`
        select p.product_id from products p
        where (p.search_tsv @@ (${anyWord}) or p.category_id = any(${g.flat()}::int[])) and p.product_id <> all(${exclude}::int[])
        order by case ${sql.join(whens, sql` `)} else ${g.length} end, ts_rank(p.search_tsv, ${anyWord}) desc, (p.inventory_qty > 0) desc, p.gmv_cents desc, p.product_id
        limit ${limit}`.execute(api.db);
      return rows.map((r) => r.product_id);
    };
    let checked = 0;
    for (const query of [
      'skin care for dry skin',
      'earphones',
      'nappy bag',
      'trainers for the gym',
      'comfy bed for my senior dog',
      'rucksack for travelling',
      'robot hoover',
      'cologne',
    ]) {
      const si = understandShoppingIntent(query, { categories: snapshot.categories });
      for (const limit of [1, 3, 10]) {
        const found = await retrieve(api.db, si, limit, snapshot);
        const earlier = found.hits.filter((h) => h.source !== 'broadened' && h.source !== 'trending').map((h) => h.product.product_id);
        const broadened = found.hits.filter((h) => h.source === 'broadened').map((h) => h.product.product_id);
        if (!broadened.length) continue;
        checked++;
        expect(broadened, `${query}, limit ${limit}`).toEqual(await byOneSort(si, earlier, limit - earlier.length));
      }
    }
    expect(checked).toBeGreaterThanOrEqual(10);
  });

  it('tiers run in one statement answer as tiers run in turn: each adds only what the earlier did not return, and a shorter answer is a prefix', async () => {
    const snapshot = await new CatalogSnapshotCache(0).get(api.db);
    const spans: string[][] = [];
    for (const query of ['floral midi dress', 'portable tire inflator', 'skin care for dry skin', 'waterproof hiking boots under $150']) {
      const si = understandShoppingIntent(query, { categories: snapshot.categories, priceQuartiles: snapshot.priceQuartiles });
      const full = await retrieve(api.db, si, 10, snapshot);
      const ids = full.hits.map((h) => h.product.product_id);
      expect(new Set(ids).size, query).toBe(ids.length);
      const order = full.hits
        .filter((h) => h.source !== 'trending')
        .map((h) => MATCH_TIERS.indexOf(h.source as (typeof MATCH_TIERS)[number]));
      expect(order, query).toEqual([...order].sort((a, b) => a - b));
      expect(full.tier, query).toBe(MATCH_TIERS[order[order.length - 1]!] ?? 'none');
      spans.push([...new Set(full.hits.map((h) => h.source))]);
      for (const limit of [1, 3, 5, 7]) {
        const short = await retrieve(api.db, si, limit, snapshot);
        expect(
          short.hits.map((h) => `${h.product.product_id}:${h.source}`),
          `${query}, limit ${limit}`,
        ).toEqual(full.hits.slice(0, limit).map((h) => `${h.product.product_id}:${h.source}`));
      }
    }
    // The statement does reach past its first tier: raw_substring, then strict, then fuzzy, in one answer.
    expect(spans).toContainEqual(['raw_substring', 'strict', 'fuzzy']);
  });

  it('tiers that cannot fill the limit are topped up with trending products that pass the same filters', async () => {
    // Exactly two running shoes at or under the second-lowest running-shoe price: the category alone
    // (broadened tier) finds two, and trending fills the rest under the same budget.
    const cheapest = await api.db
      .selectFrom('products')
      .select('price_cents')
      .where('category_l2', '=', 'Running Shoes')
      .orderBy('price_cents')
      .limit(3)
      .execute();
    expect(cheapest[1]!.price_cents).toBeLessThan(cheapest[2]!.price_cents);
    const snapshot = await new CatalogSnapshotCache(0).get(api.db);
    const si = understandShoppingIntent('running shoes', { categories: snapshot.categories });
    const found = await retrieve(
      api.db,
      { ...si, keywords: [], phrase: '', budget: { minCents: null, maxCents: cheapest[1]!.price_cents, phrase: 'test', source: 'text' } },
      5,
      snapshot,
    );
    expect(found).toMatchObject({ tier: 'broadened', intentHits: 2, trendingFill: 3 });
    for (const h of found.hits) expect(h.product.price_cents).toBeLessThanOrEqual(cheapest[1]!.price_cents);
    expect(found.hits.map((h) => h.source)).toEqual(['broadened', 'broadened', 'trending', 'trending', 'trending']);
  });

  it('channel=portal_demo works without an API key; other calls need one', async () => {
    const demo = await call(api.url, 'GET', recommendUrl({ intent: 'air fryer', channel: 'portal_demo' }));
    expect(demo.status, demo.text).toBe(200);
    expect(demo.body.items[0].channel).toBe('portal_demo');
    expect((await call(api.url, 'GET', recommendUrl({ intent: 'air fryer' }))).body).toMatchObject({ error: 'invalid_api_key' });
    expect((await call(api.url, 'GET', recommendUrl({ intent: 'air fryer', channel: 'chat' }))).status).toBe(401);
    // A bearer that is sent is checked, demo channel or not.
    expect(
      (await call(api.url, 'GET', recommendUrl({ intent: 'air fryer', channel: 'portal_demo' }), { token: 'cig_sk_wrong' })).status,
    ).toBe(401);
    const narrow = await onboard(api.url, { scopes: ['intents'] });
    expect((await call(api.url, 'GET', recommendUrl({ intent: 'air fryer' }), { token: narrow.apiKey })).body).toMatchObject({
      error: 'insufficient_scope',
    });
  });

  it('portal demo calls are rate-limited per IP', async () => {
    const limited = await startTestApi({ withTemporal: false, db: api.db, env: { PORTAL_DEMO_RATE_LIMIT_PER_IP: '2' } });
    try {
      const demo = () => call(limited.url, 'GET', recommendUrl({ intent: 'air fryer', channel: 'portal_demo' }));
      expect((await demo()).status).toBe(200);
      expect((await demo()).status).toBe(200);
      const third = await demo();
      expect(third.status).toBe(429);
      expect(third.body).toMatchObject({ error: 'rate_limited' });
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      // API-key calls do not spend the demo bucket.
      expect((await call(limited.url, 'GET', recommendUrl({ intent: 'air fryer' }), { token: dev.apiKey })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('answers 503 {error, message} when the database cannot be reached', async () => {
    const down = await startTestApi({
      withTemporal: false,
      env: { DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/gone` },
    });
    try {
      for (const headers of [{}, { authorization: `Bearer ${dev.apiKey}` }] as Record<string, string>[]) {
        const res = await call(down.url, 'GET', recommendUrl({ intent: 'air fryer', channel: 'portal_demo' }), { headers });
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ error: 'service_unavailable', message: expect.stringContaining('temporarily unavailable') });
      }
    } finally {
      await down.close();
    }
  });
});

describe('a database pool with every connection in use', () => {
  it('answers 503 "Service busy" with Retry-After 1, told apart from a database that cannot be reached', async () => {
    // One connection, held by an open transaction: the next statement waits the pool's 3 s in vain.
    const db = createDb(api.config.DATABASE_URL!, { max: 1 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const holder = db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      await held;
    });
    const busy = await startTestApi({ withTemporal: false, db });
    try {
      const res = await call(busy.url, 'GET', '/v1/whoami', { token: dev.apiKey });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'service_unavailable', message: expect.stringContaining('Service busy') });
      expect(res.headers.get('retry-after')).toBe('1');
      release();
      await holder;
      // The connection is back: the same request succeeds.
      expect((await call(busy.url, 'GET', '/v1/whoami', { token: dev.apiKey })).status).toBe(200);
    } finally {
      release();
      await busy.close();
      await db.destroy();
    }
  });
});

describe('recording recommendations', () => {
  /** Real recommendations, captured instead of written, to hand to a recorder under test. */
  async function capture(intents: string[]): Promise<Recommendation[]> {
    const captured: Recommendation[] = [];
    const deps = recommendDeps({
      ...api.deps,
      recommendations: { record: async (r: Recommendation) => void captured.push(r) } as unknown as RecommendationRecorder,
    });
    for (const intent of intents) await recommend(deps, { intent, limit: 2 }, {});
    return captured;
  }
  const stored = async (r: Recommendation) => ({
    intent: !!(await api.db.selectFrom('intents').select('intent_id').where('intent_id', '=', r.intent.intent_id).executeTakeFirst()),
    session: !!(await api.db
      .selectFrom('match_sessions')
      .select('match_session_id')
      .where('match_session_id', '=', r.session.match_session_id)
      .executeTakeFirst()),
    proposals: (await api.db.selectFrom('proposals').select('proposal_id').where('intent_id', '=', r.intent.intent_id).execute()).length,
    transitions: (
      await api.db
        .selectFrom('proposal_transitions')
        .select('id')
        .where(
          'proposal_id',
          'in',
          r.proposals.map((p) => p.proposal_id),
        )
        .execute()
    ).length,
    cards: (await api.db.selectFrom('rec_cards').select('rec_id').where('match_session_id', '=', r.session.match_session_id).execute())
      .length,
  });
  /** The Db with a count of the statements sent through it, failed ones included. */
  const counted = (base = api.db) => {
    const counter = { statements: 0 };
    const db = base.withPlugin({
      transformQuery: ({ node }) => (counter.statements++, node),
      transformResult: async ({ result }) => result,
    });
    return { db, counter };
  };

  it('a write starts at once when none is in flight; those arriving meanwhile share the next statement', async () => {
    const recs = await capture(['yoga mat', 'air fryer', 'dog bed', 'camping tent', 'robot vacuum', 'gold hoop earrings']);
    const { db, counter } = counted();
    const recorder = new RecommendationRecorder(db);
    await Promise.all(recs.map((r) => recorder.record(r)));
    expect(counter.statements).toBe(2);
    for (const r of recs) expect(await stored(r)).toEqual({ intent: true, session: true, proposals: 2, transitions: 2, cards: 2 });
  });

  it('when a shared write fails, each recommendation is written alone: only the bad one fails, and nothing of it is kept', async () => {
    const [first, ...rest] = await capture(['massage gun', 'baby monitor', 'cast iron skillet', 'laptop backpack']);
    const bad = { ...rest[1]!, session: { ...rest[1]!.session, intent_id: 'int_does_not_exist' } };
    const batch = [rest[0]!, bad, rest[2]!];
    const { db, counter } = counted();
    const recorder = new RecommendationRecorder(db);
    const results = await Promise.allSettled([recorder.record(first!), ...batch.map((r) => recorder.record(r))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/foreign key/);
    // first alone, the failed batch of three, then the three one by one.
    expect(counter.statements).toBe(5);
    for (const r of [first!, rest[0]!, rest[2]!])
      expect(await stored(r)).toEqual({ intent: true, session: true, proposals: 2, transitions: 2, cards: 2 });
    expect(await stored(bad)).toEqual({ intent: false, session: false, proposals: 0, transitions: 0, cards: 0 });
  });

  it('when the database cannot be reached, a shared write fails for all its recommendations at once', async () => {
    const recs = await capture(['air fryer', 'dog bed', 'yoga mat']);
    const gone = createDb(`postgres://postgres@127.0.0.1:${await closedPort()}/gone`, { max: 2 });
    try {
      const { db, counter } = counted(gone);
      const recorder = new RecommendationRecorder(db);
      const results = await Promise.allSettled(recs.map((r) => recorder.record(r)));
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(results.every((r) => isDatabaseUnavailable((r as PromiseRejectedResult).reason))).toBe(true);
      // The first alone, then the other two together; no one-by-one retries.
      expect(counter.statements).toBe(2);
    } finally {
      await gone.destroy();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { DECISION_EVENT_TYPES } from '../src/db/schema-supply';

let api: TestApi;
let base: string;
let dev: Onboarded;

interface Product {
  product_id: number;
  title: string;
  price_cents: number;
  tags: string[];
  category_l1: string;
  category_l2: string;
  brand: string;
  main_image: string | null;
  region_allow: string[];
}
/** An in-stock product with creator videos that have orders, sold in the US. */
let product: Product;

const uid = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(base, 'POST', path, { token: dev.apiKey, body, headers });
const event = (body: Record<string, unknown>) => post('/v1/decision-events', body);
const feed = (body: Record<string, unknown>) => post('/v1/experience-feed', body);

async function merchant() {
  const merchant_id = uid('mer');
  const res = await post('/v1/merchant/register', { merchant_id, agent_endpoint: 'http://127.0.0.1:9/hook' });
  expect(res.status).toBe(200);
  return { id: merchant_id, token: res.body.registration_token as string };
}

async function intent(body: Record<string, unknown> = {}) {
  const res = await post('/v1/intents', { raw_query: 'something nice', ...body });
  expect(res.status, res.text).toBe(201);
  return res.body.intent;
}

async function propose(m: { id: string; token: string }, intentId: string, body: Record<string, unknown> = {}) {
  const res = await post(
    '/v1/proposals',
    {
      merchant_agent_id: m.id,
      intent_id: intentId,
      product_id: product.product_id,
      offer_title: 'Offer',
      price: product.price_cents / 100,
      ...body,
    },
    { 'x-merchant-token': m.token },
  );
  expect(res.status, res.text).toBe(201);
  return res.body.proposal;
}

/** An intent with one proposal, ranked in a match session and accepted: a live match token. */
async function acceptedOffer() {
  const m = await merchant();
  const i = await intent();
  const p = await propose(m, i.intent_id);
  const session = await post('/v1/match', { intent_id: i.intent_id });
  expect(session.status, session.text).toBe(201);
  const accepted = await post(`/v1/match/${session.body.match_session.match_session_id}/accept`, {});
  expect(accepted.status, accepted.text).toBe(200);
  return { merchant: m, intent: i, proposal: p, token: accepted.body.match_token };
}

beforeAll(async () => {
  api = await startTestApi({ withTemporal: false, env: { ALLOW_PRIVATE_ENDPOINTS: 'true' } });
  base = api.url;
  dev = await onboard(base);
  const { rows } = await sql<Product>`
    select p.product_id, p.title, p.price_cents, p.tags, p.category_l1, p.category_l2, p.brand, p.main_image, p.region_allow
    from products p
    where p.inventory_qty > 20 and p.currency = 'USD' and 'US' = any(p.region_allow) and p.brand is not null
      and (select count(*) from videos v where v.product_id = p.product_id and v.orders > 0) >= 2
    order by p.product_id limit 1`.execute(api.db);
  product = rows[0]!;
  expect(product).toBeDefined();
});
afterAll(() => api.close());

describe('auth', () => {
  it('401 invalid_api_key without a key', async () => {
    for (const path of ['/v1/decision-events', '/v1/experience-feed']) {
      const res = await call(base, 'POST', path, { body: { event_type: 'pick', agent_id: 'a' } });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_api_key');
    }
  });
});

describe('proposal experience (docs/EXPERIENCE.md)', () => {
  it('builds experience_preview and experience_card from the product, its creator evidence and the context; every statement matches the data', async () => {
    const m = await merchant();
    const sceneWord = product.tags.find((t) => t.length > 3 && !/^\d/.test(t))!;
    const budgetMax = (product.price_cents + 1250) / 100;
    const i = await intent({
      raw_query: `${sceneWord} for me`,
      budget_range: { max: budgetMax },
      region: 'US',
      experience_context: {
        scene: `weekend ${sceneWord} session`,
        desired_feeling: 'zzqx unmatched',
        visual_constraints: ['warm tones'],
        confirmation_goal: 'feel ready',
        extra: 1,
      },
    });
    const p = await propose(m, i.intent_id);
    const card = p.experience_card;
    const preview = p.experience_preview;

    expect(card).toMatchObject({
      intent_id: i.intent_id,
      proposal_id: p.proposal_id,
      scene: { scene: `weekend ${sceneWord} session`, desired_feeling: 'zzqx unmatched', confirmation_goal: 'feel ready' },
    });
    expect(card.experience_id).toMatch(/^exp_/);
    expect(card.preview).toEqual(preview);
    expect(preview).toMatchObject({
      kind: 'generated',
      asset: { url: product.main_image, source: 'catalog_image' },
      revision: 0,
      remixed: null,
    });
    expect(preview.scene_preview).toMatchObject({
      scene: `weekend ${sceneWord} session`,
      mood: 'zzqx unmatched',
      visual_constraints: ['warm tones'],
    });
    expect(preview.remixable_dimensions.map((d: any) => d.dimension)).toEqual(['scene', 'mood', 'lighting', 'palette', 'framing']);
    expect(card.products).toEqual([
      expect.objectContaining({
        product_id: product.product_id,
        title: product.title,
        brand: product.brand,
        price: product.price_cents / 100,
        currency: 'USD',
        image: product.main_image,
      }),
    ]);
    expect(card.cta.primary).toMatchObject({ label: 'Confirm: feel ready', event: { event_type: 'confirm', proposal_id: p.proposal_id } });
    expect(card.merchant_supplied).toBeNull();

    // Creator evidence: the product's best videos with orders, by conversion then GMV.
    const videos = await api.db
      .selectFrom('videos as v')
      .innerJoin('creators as c', 'c.creator_id', 'v.creator_id')
      .select(['v.task_id', 'c.username', 'v.orders', 'v.views'])
      .where('v.product_id', '=', product.product_id)
      .where('v.orders', '>', 0)
      .orderBy('v.conversion_score', 'desc')
      .orderBy('v.gmv_cents', 'desc')
      .orderBy('v.task_id')
      .limit(3)
      .execute();
    expect(card.creator_evidence.map((e: any) => e.task_id)).toEqual(videos.map((v) => v.task_id));

    const by = (basis: string) => card.why_it_fits_you.find((s: any) => s.basis === basis);
    const budget = by('budget');
    expect(budget.data).toEqual({
      price: product.price_cents / 100,
      budget_min: null,
      budget_max: budgetMax,
      currency: 'USD',
      under_by: 12.5,
    });
    expect(budget.statement).toBe(`At $${(product.price_cents / 100).toFixed(2)} it is $12.50 under your $${budgetMax.toFixed(2)} budget.`);
    expect(by('region')).toMatchObject({
      statement: 'It is sold in your region (US).',
      data: { region: 'US', region_allow: product.region_allow },
    });
    const scene = by('scene');
    expect(scene.data.matched_words).toContain(sceneWord);
    // Every matched word really is in the product's title, tags or category; the unmatched feeling has no statement.
    const vocab = `${product.title} ${product.tags.join(' ')} ${product.category_l1} ${product.category_l2}`.toLowerCase();
    for (const s of card.why_it_fits_you.filter((x: any) => x.data.matched_words))
      for (const w of s.data.matched_words) expect(vocab).toContain(w.replace(/s$/, ''));
    expect(by('desired_feeling')).toBeUndefined();
    const top = videos[0]!;
    const evidence = by('creator_evidence');
    expect(evidence.data.top).toMatchObject({ username: top.username, orders: top.orders, views: Number(top.views) });
    expect(evidence.data.orders).toBe(videos.reduce((s, v) => s + v.orders, 0));
    expect(evidence.statement).toContain(`@${top.username}'s video is credited with ${top.orders.toLocaleString('en-US')} order`);
    expect(card.caveats).toEqual([]);

    // GET returns what was stored.
    expect((await call(base, 'GET', `/v1/proposals/${p.proposal_id}`, { token: dev.apiKey })).body.proposal.experience_card).toEqual(card);
  });

  it('over budget is a caveat, not a reason; a merchant preview is kept as a referenced asset', async () => {
    const m = await merchant();
    const i = await intent({ budget_range: { max: 10 }, region: 'ZZ' });
    const price = 25.99;
    const asset = { type: 'video', url: 'https://cdn.example/preview.mp4', duration_s: 12 };
    const p = await propose(m, i.intent_id, { price, experience_preview: asset, experience_card: { headline: 'mine' } });
    expect(p.experience_preview).toMatchObject({ kind: 'referenced', asset, revision: 0 });
    expect(p.experience_preview.remixable_dimensions).toHaveLength(5);
    expect(p.experience_card.merchant_supplied).toEqual({ headline: 'mine' });
    expect(p.experience_card.why_it_fits_you.map((s: any) => s.basis)).not.toContain('budget');
    const over = p.experience_card.caveats.find((s: any) => s.basis === 'budget');
    expect(over).toMatchObject({
      statement: 'At $25.99 it is $15.99 over your $10.00 budget.',
      data: { price, budget_max: 10, over_by: 15.99 },
    });
    expect(p.experience_card.caveats.find((s: any) => s.basis === 'region').data.region).toBe('ZZ');
  });
});

describe('POST /v1/decision-events', () => {
  it('accepts every event type (201) and derives merchant_id and product_id from the proposal', async () => {
    const { proposal, merchant: m, token } = await acceptedOffer();
    for (const type of DECISION_EVENT_TYPES) {
      const payload = type === 'remix' ? { dimension: 'lighting', value: 'golden hour' } : { note: type };
      const res = await event({ event_type: type, proposal_id: proposal.proposal_id, payload, agent_id: 'shopper-all' });
      expect(res.status, `${type}: ${res.text}`).toBe(201);
      const e = res.body.decision_event;
      expect(e).toMatchObject({
        event_type: type,
        intent_id: proposal.intent_id,
        proposal_id: proposal.proposal_id,
        merchant_id: m.id,
        product_id: product.product_id,
        agent_id: 'shopper-all',
      });
      expect(e.feedback_id).toMatch(/^fb_/);
      expect(e.match_token_id).toBe(type === 'confirm' ? token.match_token_id : null);
      expect(Date.parse(e.created_at)).toBeGreaterThan(0);
    }
    const stored = await api.db
      .selectFrom('decision_events')
      .select(['event_type', 'merchant_id'])
      .where('proposal_id', '=', proposal.proposal_id)
      .execute();
    expect(stored.map((s) => s.event_type).sort()).toEqual([...DECISION_EVENT_TYPES].sort());
    expect(new Set(stored.map((s) => s.merchant_id))).toEqual(new Set([m.id]));
  });

  it('400 unsupported_decision_event for an unknown, missing or non-text event_type', async () => {
    for (const body of [{ event_type: 'like' }, {}, { event_type: 7 }, { event_type: '' }]) {
      const res = await event(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ error: 'unsupported_decision_event', fields: ['event_type'] });
    }
  });

  it('404 for each unknown reference; 409 when references contradict each other', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ intent_id: 'int_nothing' }, 'intent_not_found'],
      [{ proposal_id: 'prop_nothing' }, 'proposal_not_found'],
      [{ match_token_id: 'mt_nothing' }, 'match_token_not_found'],
      [{ product_id: 2_000_000_000 }, 'product_not_found'],
    ];
    for (const [refs, code] of cases) {
      const res = await event({ event_type: 'pick', ...refs });
      expect(res.status, code).toBe(404);
      expect(res.body.error).toBe(code);
    }
    const a = await acceptedOffer();
    const b = await acceptedOffer();
    const foreign = await event({ event_type: 'pick', intent_id: a.intent.intent_id, proposal_id: b.proposal.proposal_id });
    expect(foreign.status).toBe(409);
    expect(foreign.body.error).toBe('proposal_intent_mismatch');
    const token = await event({ event_type: 'confirm', proposal_id: a.proposal.proposal_id, match_token_id: b.token.match_token_id });
    expect(token.status).toBe(409);
    expect(token.body.error).toBe('match_token_mismatch');
    const tokenIntent = await event({ event_type: 'view', intent_id: a.intent.intent_id, match_token_id: b.token.match_token_id });
    expect(tokenIntent.body.error).toBe('proposal_intent_mismatch');
    const wrongProduct = await event({ event_type: 'pick', proposal_id: a.proposal.proposal_id, product_id: product.product_id + 1 });
    expect(wrongProduct.body.error).toBe('product_mismatch');
    const agents = await event({ event_type: 'pick', agent_id: 'x', payload: { agent_id: 'y' } });
    expect(agents.body).toMatchObject({ error: 'invalid_payload', fields: ['agent_id'] });
    const noOffer = await event({ event_type: 'fulfilled' });
    expect(noOffer.body).toMatchObject({ error: 'invalid_payload', fields: ['proposal_id'] });
  });

  it('remix returns a revised preview differing in the remixed dimension, chains on the last remix, and names a bad payload', async () => {
    const { proposal } = await acceptedOffer();
    const original = proposal.experience_preview;
    const first = await event({
      event_type: 'remix',
      proposal_id: proposal.proposal_id,
      payload: { dimension: 'scene', value: 'rooftop at dusk' },
    });
    expect(first.status, first.text).toBe(201);
    const revised = first.body.decision_event.revised_experience_preview;
    const current = (p: any, d: string) => p.remixable_dimensions.find((x: any) => x.dimension === d).current;
    expect(current(revised, 'scene')).toBe('rooftop at dusk');
    expect(current(original, 'scene')).not.toBe('rooftop at dusk');
    for (const d of ['mood', 'lighting', 'palette', 'framing']) expect(current(revised, d)).toBe(current(original, d));
    expect(revised).toMatchObject({
      revision: 1,
      remixed: { dimension: 'scene', from: current(original, 'scene'), to: 'rooftop at dusk' },
      asset: { base_preview_id: original.preview_id },
    });
    expect(revised.scene_preview.scene).toBe('rooftop at dusk');
    expect(revised.scene_preview.prompt).toContain('rooftop at dusk');
    expect(revised.preview_id).not.toBe(original.preview_id);
    expect(first.body.decision_event.payload).toMatchObject({
      dimension: 'scene',
      value: 'rooftop at dusk',
      revised_experience_preview: revised,
    });

    const second = (
      await event({ event_type: 'remix', proposal_id: proposal.proposal_id, payload: { dimension: 'mood', value: 'playful' } })
    ).body.decision_event.revised_experience_preview;
    expect(second).toMatchObject({
      revision: 2,
      remixed: { dimension: 'mood', to: 'playful' },
      scene_preview: { scene: 'rooftop at dusk', mood: 'playful' },
    });

    const badDimension = await event({
      event_type: 'remix',
      proposal_id: proposal.proposal_id,
      payload: { dimension: 'price', value: 'lower' },
    });
    expect(badDimension.body).toMatchObject({ error: 'invalid_payload', fields: ['payload.dimension'] });
    expect(badDimension.body.message).toContain('scene, mood, lighting, palette, framing');
    const noValue = await event({ event_type: 'remix', proposal_id: proposal.proposal_id, payload: { dimension: 'palette' } });
    expect(noValue.body).toMatchObject({ error: 'invalid_payload', fields: ['payload.value'] });
    const noOffer = await event({ event_type: 'remix', payload: { dimension: 'scene', value: 'x' } });
    expect(noOffer.body).toMatchObject({ error: 'invalid_payload', fields: ['proposal_id'] });
  });

  it('confirm links to the given token or the newest token of the proposal; 409 when there is none', async () => {
    const { proposal, token } = await acceptedOffer();
    const implicit = await event({ event_type: 'confirm', proposal_id: proposal.proposal_id });
    expect(implicit.status, implicit.text).toBe(201);
    expect(implicit.body.decision_event.match_token_id).toBe(token.match_token_id);
    const explicit = await event({ event_type: 'confirm', match_token_id: token.match_token_id });
    expect(explicit.body.decision_event).toMatchObject({
      match_token_id: token.match_token_id,
      proposal_id: proposal.proposal_id,
      intent_id: proposal.intent_id,
    });
    const stored = await api.db
      .selectFrom('decision_events')
      .select('match_token_id')
      .where('feedback_id', '=', implicit.body.decision_event.feedback_id)
      .executeTakeFirstOrThrow();
    expect(stored.match_token_id).toBe(token.match_token_id);

    const m = await merchant();
    const unmatched = await propose(m, (await intent()).intent_id);
    const none = await event({ event_type: 'confirm', proposal_id: unmatched.proposal_id });
    expect(none.status).toBe(409);
    expect(none.body.error).toBe('match_token_not_issued');
    const noRef = await event({ event_type: 'confirm' });
    expect(noRef.body).toMatchObject({ error: 'invalid_payload', fields: ['proposal_id'] });
  });
});

describe('POST /v1/experience-feed', () => {
  const ids = (f: any) => f.items.map((i: any) => i.products[0].product_id);

  it('400 invalid_payload without agent_id or with limit out of range', async () => {
    expect((await feed({})).body).toMatchObject({ error: 'invalid_payload', fields: ['agent_id'] });
    expect((await feed({ agent_id: 'a', limit: 25 })).body).toMatchObject({ error: 'invalid_payload', fields: ['limit'] });
  });

  it('is deterministic for the same input and events', async () => {
    const body = { agent_id: uid('agent'), inspiration_refs: [{ type: 'text', text: 'organic coffee' }], limit: 8 };
    const a = (await feed(body)).body.feed;
    const b = (await feed(body)).body.feed;
    expect(a.items).toHaveLength(8);
    expect(b.items).toEqual(a.items);
    expect(b.feed_id).toBe(a.feed_id);
    expect(a.feed_id).toMatch(/^feed_/);
    expect(a.inspiration_refs[0]).toMatchObject({ type: 'text', resolved: true, seeds: { keywords: ['organic', 'coffee'] } });
    for (const item of a.items) {
      expect(item).toMatchObject({ intent_id: null, proposal_id: null, cta: { primary: { event: { event_type: 'pick' } } } });
      const kw = item.why_it_fits_you.find((s: any) => s.basis === 'keywords');
      expect(kw, JSON.stringify(item.products[0])).toBeDefined();
    }
    const other = (await feed({ ...body, limit: 7 })).body.feed;
    expect(other.feed_id).not.toBe(a.feed_id);
    expect(ids(other)).toEqual(ids(a).slice(0, 7));
  });

  it('a nope removes the product; picks in a category raise that category; explicit taste wins', async () => {
    const agent = uid('agent');
    const first = (await feed({ agent_id: agent })).body.feed;
    expect(first.taste_profile.derived.event_count).toBe(0);
    const noped = ids(first)[0];
    expect((await event({ event_type: 'nope', product_id: noped, agent_id: agent })).status).toBe(201);
    const afterNope = (await feed({ agent_id: agent })).body.feed;
    expect(ids(afterNope)).not.toContain(noped);
    expect(afterNope.taste_profile.derived).toMatchObject({ event_count: 1, excluded_product_ids: [noped] });

    // Two picks in a category the cold-start feed does not show.
    const shown = new Set(first.items.map((i: any) => i.products[0].category_l2));
    const { rows } = await sql<{ product_id: number; category_l2: string; price_cents: number }>`
      select product_id, category_l2, price_cents from products
      where inventory_qty > 0 and category_l2 is not null and not (category_l2 = any(${[...shown]}::text[]))
      order by product_id limit 1`.execute(api.db);
    const category = rows[0]!.category_l2;
    const picks = await api.db
      .selectFrom('products')
      .select(['product_id', 'price_cents'])
      .where('category_l2', '=', category)
      .where('inventory_qty', '>', 0)
      .orderBy('product_id')
      .limit(2)
      .execute();
    for (const p of picks)
      expect((await event({ event_type: 'pick', product_id: p.product_id, payload: { agent_id: agent } })).status).toBe(201);
    const afterPicks = (await feed({ agent_id: agent })).body.feed;
    expect(afterPicks.taste_profile.derived.event_count).toBe(3);
    expect(afterPicks.taste_profile.derived.categories[0]).toEqual({ name: category, score: 2, events: 2 });
    expect(afterPicks.taste_profile.effective.categories).toEqual([category]);
    const prices = picks.map((p) => p.price_cents);
    expect(afterPicks.taste_profile.derived.price_band).toEqual({
      min: Math.floor(Math.min(...prices) * 0.75) / 100,
      max: Math.ceil(Math.max(...prices) * 1.25) / 100,
    });
    expect(afterPicks.items[0].products[0].category_l2).toBe(category);
    expect(afterPicks.items[0].why_it_fits_you).toContainEqual(
      expect.objectContaining({ basis: 'taste_category', data: expect.objectContaining({ category, score: 2, events: 2 }) }),
    );
    expect(ids(afterPicks)).not.toContain(noped);

    // Explicit members win over the derived ones.
    const explicitCategory = first.items[1].products[0].category_l2;
    const explicit = (await feed({ agent_id: agent, taste_profile: { categories: [explicitCategory] } })).body.feed;
    expect(explicit.taste_profile.effective.categories).toEqual([explicitCategory]);
    expect(explicit.taste_profile.explicit).toEqual({ categories: [explicitCategory] });
    expect(explicit.items[0].products[0].category_l2).toBe(explicitCategory);
  });
});

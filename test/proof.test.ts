import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { CommerceProofFeed, CommunityProofFeed } from '../src/schemas/proof';
import { importCommunityEvidence } from '../src/proof/community-import';
import { DEFAULT_SUBREDDITS, MAX_RECORDS_PER_FILE, REDDIT_LIMITS } from '../src/proof/automation-plan';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE = path.join(ROOT, 'test/fixtures/community/evidence.jsonl');

let api: TestApi;
let dev: Onboarded;
let tmp: string;
const get = (p: string) => call(api.url, 'GET', p, { token: dev.apiKey });

beforeAll(async () => {
  api = await startTestApi({ withTemporal: false });
  dev = await onboard(api.url);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'proof-test-'));
});
afterAll(async () => {
  await api.close();
  await rm(tmp, { recursive: true, force: true });
});

/** The ranking the feed promises, straight from the database (optionally narrowed by a product condition). */
async function rankedTaskIds(where = sql<boolean>`true`, limit = 12): Promise<string[]> {
  const { rows } = await sql<{ task_id: string }>`
    select v.task_id from videos v join products p on p.product_id = v.product_id
    where v.orders > 0 and v.gmv_cents > 0 and ${where}
    order by v.conversion_score desc, v.gmv_cents desc, v.task_id limit ${limit}`.execute(api.db);
  return rows.map((r) => r.task_id);
}

describe('commerce proof feed (docs/PROOF.md)', () => {
  it('by default: 12 videos with verified outcomes, ranked by conversion_score, then GMV, then task_id', async () => {
    const res = await get('/v1/proof-feed');
    expect(res.status, res.text).toBe(200);
    const feed = CommerceProofFeed.parse(res.body);
    expect(feed).toMatchObject({ source: 'commerce', count: 12, filters: { intent: null, keywords: [], products: [], match: null } });
    expect(feed.items.map((i) => i.task_id)).toEqual(await rankedTaskIds());
    expect((await get('/v1/proof-feed?source=commerce')).body.items).toEqual(feed.items);

    for (const item of feed.items) {
      const row = await api.db
        .selectFrom('videos as v')
        .innerJoin('creators as c', 'c.creator_id', 'v.creator_id')
        .innerJoin('products as p', 'p.product_id', 'v.product_id')
        .select([
          'v.orders',
          'v.gmv_cents',
          'v.views',
          'v.conversion_score',
          'v.duration_s',
          'c.username',
          'p.product_id',
          'p.title',
          'p.price_cents',
        ])
        .where('v.task_id', '=', item.task_id)
        .executeTakeFirstOrThrow();
      expect(item.outcome).toEqual({
        orders: row.orders,
        gmv_usd: Number(row.gmv_cents) / 100,
        views: Number(row.views),
        conversion_score: row.conversion_score,
      });
      expect(item.outcome.orders).toBeGreaterThan(0);
      expect(item.outcome.gmv_usd).toBeGreaterThan(0);
      expect(item.product).toMatchObject({ id: String(row.product_id), title: row.title, price_usd: row.price_cents / 100 });
      expect(item.creator.username).toBe(row.username);
      // The statement repeats the numbers and claims nothing beyond them.
      const perHundred = ((100 * row.orders) / Number(row.views)).toFixed(2);
      expect(item.proof_statement).toContain(
        `@${row.username}'s ${row.duration_s}s video of ${row.title} is credited with ${row.orders.toLocaleString('en-US')} order`,
      );
      expect(item.proof_statement).toContain(
        `from ${Number(row.views).toLocaleString('en-US')} views (${perHundred} orders per 100 views).`,
      );
      expect(item.proof_statement).not.toMatch(/\b(best|top|#1|love|recommend)/i);
    }
  });

  it('limit is 1..24 (default 12); anything else is a 400 naming the field; no key is a 401', async () => {
    for (const bad of ['0', '25', '-1', '1.5', 'ten']) {
      const res = await get(`/v1/proof-feed?limit=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_payload', fields: ['query.limit'] });
    }
    expect((await get('/v1/proof-feed?limit=1')).body.count).toBe(1);
    const max = await get('/v1/proof-feed?limit=24');
    expect(max.body.items.map((i: any) => i.task_id)).toEqual(await rankedTaskIds(undefined, 24));
    expect((await get('/v1/proof-feed?source=tiktok')).status).toBe(400);
    const anonymous = await call(api.url, 'GET', '/v1/proof-feed');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe('invalid_api_key');
  });

  it('intent: all keywords by full-text search, in the same ranking', async () => {
    const res = await get(`/v1/proof-feed?intent=${encodeURIComponent('Noise-cancelling earbuds for me')}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.filters).toEqual({
      intent: 'Noise-cancelling earbuds for me',
      keywords: ['noise-cancelling', 'earbuds'],
      products: [],
      match: 'all_keywords',
    });
    // Independent formulation of "every keyword": plainto_tsquery ANDs the words.
    const expected = await rankedTaskIds(sql<boolean>`p.search_tsv @@ plainto_tsquery('english', 'noise-cancelling earbuds')`);
    expect(expected.length).toBeGreaterThan(0);
    expect(res.body.items.map((i: any) => i.task_id)).toEqual(expected);
  });

  it('intent: falls back to any keyword when all of them find nothing, and says so', async () => {
    const res = await get('/v1/proof-feed?intent=earbuds%20zzyzxquux&limit=24');
    expect(res.body.filters).toMatchObject({ keywords: ['earbuds', 'zzyzxquux'], match: 'any_keyword' });
    const expected = await rankedTaskIds(
      sql<boolean>`p.search_tsv @@ (plainto_tsquery('english', 'earbuds') || plainto_tsquery('english', 'zzyzxquux'))`,
      24,
    );
    expect(expected.length).toBe(24);
    expect(res.body.items.map((i: any) => i.task_id)).toEqual(expected);
    // Nothing at all: an empty feed, still reporting the fallback.
    const none = await get('/v1/proof-feed?intent=zzyzxquux%20qqxxzzq');
    expect(none.body).toMatchObject({ count: 0, items: [], filters: { match: 'any_keyword' } });
    // Only stopwords: there is nothing to search for, so the intent does not filter.
    const stop = await get('/v1/proof-feed?intent=something%20for%20me');
    expect(stop.body).toMatchObject({ count: 12, filters: { keywords: [], match: null } });
  });

  it('products: titles containing any of the names (case-insensitive, LIKE characters literal), combined with intent', async () => {
    const res = await get('/v1/proof-feed?products=running%20SHOES,%20cold%20brew&limit=24');
    expect(res.status, res.text).toBe(200);
    expect(res.body.filters.products).toEqual(['running SHOES', 'cold brew']);
    expect(res.body.items.map((i: any) => i.task_id)).toEqual(
      await rankedTaskIds(sql<boolean>`(p.title ilike '%running shoes%' or p.title ilike '%cold brew%')`, 24),
    );
    expect(res.body.items.some((i: any) => /cold brew/i.test(i.product.title))).toBe(true);

    const both = await get('/v1/proof-feed?products=running%20shoes&intent=trail');
    expect(both.body.filters.match).toBe('all_keywords');
    expect(both.body.items.map((i: any) => i.task_id)).toEqual(
      await rankedTaskIds(sql<boolean>`p.title ilike '%running shoes%' and p.search_tsv @@ plainto_tsquery('english', 'trail')`),
    );
    expect((await get('/v1/proof-feed?products=100%25_cotton')).body.count).toBe(0);
    expect((await get(`/v1/proof-feed?products=${Array.from({ length: 11 }, (_, i) => `name${i}`).join(',')}`)).status).toBe(400);
    // What the published pattern allows is accepted: blank names are ignored (none left: no filter),
    // one-letter names filter; a name over 200 characters is refused, as the pattern says.
    const all = await get('/v1/proof-feed?limit=24');
    for (const blank of ['', ',', '%20,%20']) {
      const res = await get(`/v1/proof-feed?products=${blank}&limit=24`);
      expect(res.status, blank).toBe(200);
      expect(res.body.filters.products).toEqual([]);
      expect(res.body.items.map((i: any) => i.task_id)).toEqual(all.body.items.map((i: any) => i.task_id));
    }
    expect((await get('/v1/proof-feed?products=x')).status).toBe(200);
    expect((await get(`/v1/proof-feed?products=${'x'.repeat(201)}`)).status).toBe(400);
  });
});

describe('community evidence import (npm run import-community)', () => {
  it('imports the good lines, reports bad ones by line number, and links names to catalog products', async () => {
    const report = await importCommunityEvidence(api.db, FIXTURE, 'fixture-1');
    expect(report).toMatchObject({ batch: 'fixture-1', imported: 15, updated: 0, unchanged: 0, linked: 12 });
    expect(report.skipped).toEqual([
      { line: 3, reason: 'not valid JSON' },
      { line: 7, reason: 'not a JSON object' },
      { line: 12, reason: 'duplicate post reddit/t3_1c0aaa1 (first on line 8)' },
      { line: 16, reason: expect.stringMatching(/^claims\.0\.stance: /) },
      { line: 19, reason: 'thread_url: not a reddit.com URL' },
      { line: 22, reason: 'community: not a subreddit name' },
      { line: 23, reason: expect.stringMatching(/^claims: /) },
    ]);

    const rows = await api.db.selectFrom('community_evidence').selectAll().execute();
    expect(rows).toHaveLength(15);
    const byPost = new Map(rows.map((r) => [r.post_id, r]));
    // Titles repeat in the catalog (and colour variants nearly do): a name links to the best seller among equals.
    const bestSeller = async (titles: string) =>
      (
        await api.db
          .selectFrom('products')
          .select('product_id')
          .where('title', 'like', titles)
          .orderBy('gmv_cents', 'desc')
          .executeTakeFirstOrThrow()
      ).product_id;
    const orbitron = await bestSeller('Orbitron Active noise-cancelling Open-ear Earbuds - Charcoal');
    expect(byPost.get('t3_1b2c3d4')!.product_id).toBe(orbitron);
    // The forum post omits the colour: still linked.
    expect(byPost.get('hf-991204')).toMatchObject({ source: 'forum', product_id: orbitron });
    // "Stride Lab Lightweight Stability Running Shoes" is as close to the White as to the Cream variant.
    expect(byPost.get('t3_1c0aaa1')!.product_id).toBe(await bestSeller('Stride Lab Lightweight Stability Running Shoes - %'));
    expect(byPost.get('t3_1d5eee1')!.product_id).toBe(await bestSeller('Sipwell Dark roast Cold Brew Concentrate'));
    // Not in the catalog, and a sibling model of a catalog brand: kept as topics, not linked.
    expect(byPost.get('t3_1d9fff1')!.product_id).toBeNull();
    expect(byPost.get('t3_1b9ggg1')!.product_id).toBeNull();

    // Authors are pseudonyms; "[deleted]" has none. Excerpts are bounded.
    const fixture = (await readFile(FIXTURE, 'utf8')).split('\n');
    for (const r of rows) {
      if (r.author_hash !== null) expect(r.author_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(r.excerpt.length).toBeLessThanOrEqual(500);
    }
    expect(byPost.get('t1_ky02b7')!.author_hash).toBeNull();
    expect(rows.some((r) => r.author_hash?.includes('quietcommuter'))).toBe(false);
    const long = JSON.parse(fixture[0]!).excerpt as string;
    expect(long.length).toBeGreaterThan(500);
    expect(byPost.get('t3_1b2c3d4')!.excerpt).toMatch(/…$/);
    expect(long.startsWith(byPost.get('t3_1b2c3d4')!.excerpt.slice(0, -1))).toBe(true);
    expect(byPost.get('t1_kx91a2')).toMatchObject({
      community: 'headphones',
      upvotes: 57,
      import_batch: 'fixture-1',
      claims: [{ attribute: 'battery_life', stance: 'positive', text: 'Easily 9 hours per charge.' }, expect.anything()],
    });
  });

  it('re-importing is idempotent; a record whose content changed is updated in place', async () => {
    const before = await api.db.selectFrom('community_evidence').selectAll().orderBy('evidence_id').execute();
    expect(await importCommunityEvidence(api.db, FIXTURE, 'fixture-2')).toMatchObject({
      imported: 0,
      updated: 0,
      unchanged: 15,
      linked: 12,
    });
    expect(await api.db.selectFrom('community_evidence').selectAll().orderBy('evidence_id').execute()).toEqual(before);

    const line = JSON.parse((await readFile(FIXTURE, 'utf8')).split('\n')[1]!);
    const edited = path.join(tmp, 'edited.jsonl');
    await writeFile(edited, `${JSON.stringify({ ...line, upvotes: 58 })}\n`);
    expect(await importCommunityEvidence(api.db, edited, 'fixture-edit')).toMatchObject({ imported: 0, updated: 1, unchanged: 0 });
    const updated = await api.db.selectFrom('community_evidence').selectAll().where('post_id', '=', line.post_id).executeTakeFirstOrThrow();
    const original = before.find((r) => r.post_id === line.post_id)!;
    expect(updated).toMatchObject({ evidence_id: original.evidence_id, upvotes: 58, import_batch: 'fixture-edit' });
    // The fixture again puts it back.
    expect(await importCommunityEvidence(api.db, FIXTURE, 'fixture-restore')).toMatchObject({ imported: 0, updated: 1, unchanged: 14 });
  });

  it('leaves nothing half-imported when the file cannot be read or is not a bounded import', async () => {
    const count = async () =>
      Number(
        (
          await api.db
            .selectFrom('community_evidence')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    await expect(importCommunityEvidence(api.db, path.join(tmp, 'missing.jsonl'), 'nope')).rejects.toThrow(/cannot read/);
    const dir = path.join(tmp, 'a-directory.jsonl');
    await mkdir(dir);
    await expect(importCommunityEvidence(api.db, dir, 'nope')).rejects.toThrow(/cannot read/);
    await writeFile(path.join(tmp, 'empty.jsonl'), '');
    await expect(importCommunityEvidence(api.db, path.join(tmp, 'empty.jsonl'), 'nope')).rejects.toThrow(/empty/);
    await expect(importCommunityEvidence(api.db, FIXTURE.replace(/\.jsonl$/, '.csv'), 'nope')).rejects.toThrow(/JSON Lines/);

    // Ten write batches of good records, then one record too many: all of it is rolled back.
    const template = JSON.parse((await readFile(FIXTURE, 'utf8')).split('\n')[0]!);
    const big = Array.from({ length: MAX_RECORDS_PER_FILE + 1 }, (_, i) =>
      JSON.stringify({ ...template, post_id: `t3_bulk${i}`, product_name: 'Bulk topic' }),
    );
    const tooBig = path.join(tmp, 'too-big.jsonl');
    await writeFile(tooBig, `${big.join('\n')}\n`);
    await expect(importCommunityEvidence(api.db, tooBig, 'too-big')).rejects.toThrow(
      `more than ${MAX_RECORDS_PER_FILE} records (line ${MAX_RECORDS_PER_FILE + 1})`,
    );
    expect(await count()).toBe(before);
    const fits = path.join(tmp, 'fits.jsonl');
    await writeFile(fits, `${big.slice(0, 3).join('\n')}\n`);
    expect(await importCommunityEvidence(api.db, fits, 'fits')).toMatchObject({ imported: 3 });
    await api.db.deleteFrom('community_evidence').where('import_batch', '=', 'fits').execute();
  });

  it('the npm script reports skipped lines and totals', async () => {
    const child = spawn('npm', ['run', '--silent', 'import-community', '--', FIXTURE, '--batch', 'cli-run'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATABASE_URL: inject('databaseUrl') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code, out).toBe(0);
    expect(out).toContain('line 3: skipped: not valid JSON');
    expect(out).toContain('batch cli-run: 0 imported, 0 updated, 15 unchanged, 12 linked to catalog products, 7 skipped');
  });
});

describe('community proof feed (source=community | community-proof | reddit)', () => {
  const weight = (upvotes: number) => 1 + Math.log10(1 + Math.max(0, upvotes));
  const idsOf = (group: any, ...posts: string[]) => posts.map((p) => group.evidence.find((e: any) => e.post_id === p).evidence_id);
  const groupOf = (feed: any, topic: RegExp) => feed.items.find((g: any) => topic.test(g.topic));

  it('every alias serves the same community variant, grouped per product or topic, strongest first', async () => {
    const feeds = [];
    for (const source of ['community', 'community-proof', 'reddit']) {
      const res = await get(`/v1/proof-feed?source=${source}`);
      expect(res.status, `${source}: ${res.text}`).toBe(200);
      feeds.push(CommunityProofFeed.parse(res.body));
    }
    const [feed] = feeds;
    for (const other of feeds.slice(1)) expect(other.items).toEqual(feed!.items);
    expect(feed).toMatchObject({
      source: 'community',
      count: 5,
      filters: { intent: null, keywords: [], products: [], subreddits: [], match: null },
    });
    const orbitron = await api.db
      .selectFrom('products')
      .selectAll()
      .where('title', '=', 'Orbitron Active noise-cancelling Open-ear Earbuds - Charcoal')
      .executeTakeFirstOrThrow();
    const orbitronGroup = feed!.items.find((g) => g.group_id === `product:${orbitron.product_id}`)!;
    expect(orbitronGroup).toMatchObject({
      topic: 'Orbitron Active noise-cancelling Open-ear Earbuds - Charcoal',
      product: { id: String(orbitron.product_id), title: orbitron.title, price_usd: orbitron.price_cents / 100 },
      communities: ['BuyItForLife', 'head-fi.org/portable-audio', 'headphones'],
      evidence_count: 5,
    });
    expect(feed!.items.map((g) => g.group_id)).toContain('topic:kestrel k2 hand grinder');
    expect(feed!.items.find((g) => g.group_id === 'topic:sonique open-ear earbuds')!.product).toBeNull();
    // Strongest first: total upvote weight of each group's evidence, descending.
    const strength = feed!.items.map((g) => g.evidence.reduce((s, e) => s + weight(e.upvotes), 0));
    expect([...strength].sort((a, b) => b - a)).toEqual(strength);
    expect((await get('/v1/proof-feed?source=community&limit=2')).body.items.map((g: any) => g.group_id)).toEqual(
      feed!.items.slice(0, 2).map((g) => g.group_id),
    );
  });

  it('consensus: upvote-weighted agreement per attribute, computed by hand for the Stride Lab thread', async () => {
    const group = groupOf((await get('/v1/proof-feed?source=community')).body, /^Stride Lab/);
    // cushioning: + (230, 41), − (−4 counts as 0); durability: + (230), − (41); fit: neutral only, takes no side.
    const cushionP = weight(230) + weight(41);
    const cushionN = weight(0);
    const durableP = weight(230);
    const durableN = weight(41);
    const score = (Math.abs(cushionP - cushionN) + Math.abs(durableP - durableN)) / (cushionP + cushionN + durableP + durableN);
    expect(group.consensus.score).toBeCloseTo(score, 3);
    expect(group.consensus).toMatchObject({ sample_size: 3, claim_count: 5 });
    const attr = (name: string) => group.attributes.find((a: any) => a.attribute === name);
    expect(attr('cushioning')).toMatchObject({ positive: { claims: 2 }, negative: { claims: 1, weight: 1 }, leaning: 'positive' });
    expect(attr('cushioning').agreement).toBeCloseTo((cushionP - cushionN) / (cushionP + cushionN), 3);
    expect(attr('fit')).toMatchObject({ neutral: { claims: 1 }, agreement: null, leaning: 'neutral' });
    expect(group.contradictions).toEqual([
      {
        attribute: 'cushioning',
        positive_evidence_ids: idsOf(group, 't3_1c0aaa1', 't1_kz11aa2'),
        negative_evidence_ids: idsOf(group, 't3_1c0aaa9'),
      },
      { attribute: 'durability', positive_evidence_ids: idsOf(group, 't3_1c0aaa1'), negative_evidence_ids: idsOf(group, 't1_kz11aa2') },
    ]);
    // A unanimous thread: full agreement, nothing contradicts.
    const coldBrew = groupOf((await get('/v1/proof-feed?source=community')).body, /^Sipwell/);
    expect(coldBrew.consensus).toEqual({ score: 1, sample_size: 3, claim_count: 4 });
    expect(coldBrew.contradictions).toEqual([]);
  });

  it('contradictions list the evidence on each side, across communities', async () => {
    const group = groupOf((await get('/v1/proof-feed?source=reddit')).body, /^Orbitron/);
    expect(group.contradictions).toEqual([
      {
        attribute: 'battery_life',
        positive_evidence_ids: idsOf(group, 't3_1b2c3d4', 't1_kx91a2'),
        negative_evidence_ids: idsOf(group, 'hf-991204'),
      },
      {
        attribute: 'fit',
        positive_evidence_ids: idsOf(group, 't3_1b7q0zx'),
        negative_evidence_ids: idsOf(group, 't1_kx91a2', 't1_ky02b7'),
      },
    ]);
  });

  it('subreddits: only evidence from those communities, and the plan covers only them', async () => {
    const coffee = (await get('/v1/proof-feed?source=community&subreddits=r/coffee')).body;
    expect(coffee.filters.subreddits).toEqual(['coffee']);
    expect(coffee.items.map((g: any) => g.topic).sort()).toEqual(['Kestrel K2 hand grinder', 'Sipwell Dark roast Cold Brew Concentrate']);
    expect(coffee.items.flatMap((g: any) => g.evidence.map((e: any) => e.community))).toEqual(expect.arrayContaining(['Coffee']));
    expect(new Set(coffee.items.flatMap((g: any) => g.communities))).toEqual(new Set(['Coffee']));
    expect(coffee.automation_plan.sources[0]).toMatchObject({ communities: ['coffee'], communities_from: 'request' });

    // Without the forum post, nobody says the battery is bad any more.
    const reddit = (await get('/v1/proof-feed?source=community&subreddits=headphones,BuyItForLife,HEADPHONES')).body;
    expect(reddit.filters.subreddits).toEqual(['headphones', 'BuyItForLife']);
    const orbitron = groupOf(reddit, /^Orbitron/);
    expect(orbitron.communities).toEqual(['BuyItForLife', 'headphones']);
    expect(orbitron.contradictions.map((c: any) => c.attribute)).toEqual(['fit']);
    expect(reddit.items.every((g: any) => g.evidence.every((e: any) => e.source === 'reddit'))).toBe(true);

    for (const bad of ['not%20valid!', 'a', Array.from({ length: 11 }, (_, i) => `sub${i}`).join(',')]) {
      expect((await get(`/v1/proof-feed?source=community&subreddits=${bad}`)).status, bad).toBe(400);
    }
  });

  it('intent and products filter the evidence too', async () => {
    const running = (await get('/v1/proof-feed?source=community&intent=running%20shoes')).body;
    expect(running.filters.match).toBe('all_keywords');
    expect(running.items.map((g: any) => g.topic)).toEqual(['Stride Lab Lightweight Stability Running Shoes']);
    // The linked product's category counts: no Orbitron record says "headphones", its catalog category does.
    const byCategory = (await get('/v1/proof-feed?source=community&intent=headphones%20earbuds')).body;
    expect(byCategory.items.map((g: any) => g.topic)).toContain('Orbitron Active noise-cancelling Open-ear Earbuds - Charcoal');
    const fallback = (await get('/v1/proof-feed?source=community&intent=grinder%20zzyzxquux')).body;
    expect(fallback.filters).toMatchObject({ keywords: ['grinder', 'zzyzxquux'], match: 'any_keyword' });
    expect(fallback.items.map((g: any) => g.topic)).toEqual(['Kestrel K2 hand grinder']);

    const named = (await get('/v1/proof-feed?source=community&products=kestrel,Cold%20Brew')).body;
    expect(named.items.map((g: any) => g.topic).sort()).toEqual(['Kestrel K2 hand grinder', 'Sipwell Dark roast Cold Brew Concentrate']);
  });

  it('always carries a bounded, non-crawling automation plan with the exact import command', async () => {
    const res = await get('/v1/proof-feed?source=community-proof&intent=zzyzxquux');
    expect(res.body.count).toBe(0);
    const plan = res.body.automation_plan;
    const day = res.body.generated_at.slice(0, 10);
    const latest = await api.db
      .selectFrom('community_evidence')
      .select(['import_batch', 'imported_at'])
      .orderBy('imported_at', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    const inBatch = await api.db
      .selectFrom('community_evidence')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('import_batch', '=', latest.import_batch)
      .executeTakeFirstOrThrow();
    expect(plan).toEqual({
      mode: 'bounded_import',
      crawling: false,
      recursive: false,
      schedule: { frequency: 'daily', cron: '0 4 * * *', timezone: 'UTC' },
      sources: [{ source: 'reddit', communities: DEFAULT_SUBREDDITS, communities_from: 'default', listing: 'top', ...REDDIT_LIMITS }],
      max_records_per_run: DEFAULT_SUBREDDITS.length * REDDIT_LIMITS.max_posts_per_community * (1 + REDDIT_LIMITS.max_comments_per_post),
      import_command: `npm run import-community -- community-evidence-${day}.jsonl --batch reddit-${day}`,
      record_format: 'docs/PROOF.md#jsonl-record-format',
      last_import: { import_batch: latest.import_batch, imported_at: latest.imported_at.toISOString(), records: Number(inBatch.n) },
    });
    expect(plan.max_records_per_run).toBeLessThanOrEqual(MAX_RECORDS_PER_FILE);
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ScheduleNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, type Db } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { createScratchDatabase, type ScratchDatabase } from '../src/dev/scratch-database';
import { seedCatalog } from '../src/catalog/seed';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startLoopback, type LoopbackServer } from './helpers/loopback';
import { startTestApi, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';
import { bootWorker } from '../worker/run';
import { ensureFeedSchedules } from '../src/feed-refresh/client';
import { replayAndRecord as recordHistory } from './helpers/histories';

/**
 * Feeds that refresh themselves (docs/CATALOG.md): a merchant registers a feed URL served by a
 * loopback server that counts its requests; the feed's Temporal Schedule runs the feedRefresh
 * workflow on a real worker. Runs are triggered through the schedule handle instead of waiting for
 * the interval. Covered: first run, unchanged (304), changed, a row removed (unavailable, card still
 * resolves), a hanging server (failed run with its reason within the fetch bound; the schedule keeps
 * going), another merchant's view, a schedule lost and ensured back by the worker's boot, and removal.
 */

const FETCH_TIMEOUT_MS = 2000;
/** A finished run replays and is kept as this release's shape (test/helpers/histories.ts). */
const replayAndRecord = (workflowId: string, file: string) => recordHistory(api.temporal!.client, workflowId, file);
const HEADER = 'id\ttitle\tdescription\tlink\timage_link\tavailability\tprice\tbrand';
const row = (id: string, title: string, price: string) =>
  [
    id,
    title,
    'A test product.',
    `https://shop.test/p/${id}`,
    `https://cdn.shop.test/${id}.jpg`,
    'in_stock',
    `${price} USD`,
    'Refresco',
  ].join('\t');

let scratch: ScratchDatabase;
let db: Db;
let tmp: string;
let api: TestApi;
let worker: { stop(): Promise<void> };
let dev: Onboarded;
let feedServer: LoopbackServer;

/** What the loopback feed server serves now: a body and its ETag, or a hang. */
const served = { body: '', etag: '"v0"', hang: false };
const hung: http.ServerResponse[] = [];

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'feed-refresh-test-'));
  const adminUrl = Object.assign(new URL(inject('databaseUrl')), { pathname: '/postgres' }).toString();
  scratch = await createScratchDatabase({ adminUrl, tmpDir: tmp, prefix: 'cig_feedrefresh' });
  db = createDb(scratch.url);
  await migrateToLatest(db);
  await seedCatalog(db, { products: 50 });
  const env = { DATABASE_URL: scratch.url, ALLOW_PRIVATE_ENDPOINTS: 'true', FEED_FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS) };
  api = await startTestApi({ db, env });
  worker = await startTestWorker(api.config, db);
  dev = await onboard(api.url);
  feedServer = await startLoopback((req, res) => {
    if (served.hang) {
      hung.push(res); // never answered: the fetch deadline must end the run
      return;
    }
    if (req.headers['if-none-match'] === served.etag) {
      res.writeHead(304, { etag: served.etag }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/tab-separated-values', etag: served.etag }).end(served.body);
  });
}, 120_000);

afterAll(async () => {
  for (const res of hung) res.destroy();
  await feedServer?.close();
  await worker?.stop();
  await api?.close();
  await db?.destroy();
  await scratch?.drop();
  await rm(tmp, { recursive: true, force: true });
});

async function registerMerchant(id: string) {
  const body = { merchant_id: id, agent_endpoint: 'http://127.0.0.1:9/agent' };
  const res = await call(api.url, 'POST', '/v1/merchant/register', { token: dev.apiKey, body });
  expect(res.status, res.text).toBe(200);
  return res.body.registration_token as string;
}

const asMerchant = (token: string, method: string, p: string, body?: unknown) =>
  call(api.url, method, p, { token: dev.apiKey, headers: { 'x-merchant-token': token }, body });

/** Waits (bounded) until the feed has `count` runs and the newest is finished; returns the runs, newest first. */
async function runsWhenDone(merchantId: string, token: string, feedId: string, count: number, timeoutMs = 60_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; Date.now() < deadline && i < 1000; i++) {
    const res = await asMerchant(token, 'GET', `/v1/merchant/${merchantId}/feeds/${feedId}/runs`);
    expect(res.status, res.text).toBe(200);
    const runs = res.body.runs as any[];
    if (runs.length >= count && runs[0].status !== 'running') return runs;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`feed ${feedId}: no ${count} finished runs within ${timeoutMs} ms`);
}

async function product(merchantId: string, externalId: string) {
  return db
    .selectFrom('products')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('external_id', '=', externalId)
    .executeTakeFirstOrThrow();
}

describe('a registered feed refreshed by its Temporal Schedule', () => {
  const M = 'refresh-shop';
  let token: string;
  let feedId: string;
  let scheduleId: string;
  const trigger = () => api.temporal!.client.schedule.getHandle(scheduleId).trigger('ALLOW_ALL');
  const feedRequests = () => feedServer.requests.filter((r) => r.path === '/feed.tsv');

  it('registration answers 201 with the schedule, and the first run imports the feed', async () => {
    token = await registerMerchant(M);
    served.body = [HEADER, row('RF-1', 'Cedar Bowl', '20.00'), row('RF-2', 'Linen Towel', '12.50'), row('RF-3', 'Clay Mug', '9.00')].join(
      '\n',
    );
    served.etag = '"v1"';
    const res = await asMerchant(token, 'POST', `/v1/merchant/${M}/feeds`, { url: `${feedServer.url}/feed.tsv`, refresh_interval_s: 3600 });
    expect(res.status, res.text).toBe(201);
    feedId = res.body.feed_id;
    scheduleId = res.body.schedule_id;
    expect(res.body).toMatchObject({ merchant_id: M, refresh_interval_s: 3600, full_snapshot: true, currency: null, store_url: null });
    expect(res.body).toMatchObject({ status: 'active', schedule_id: `feed-refresh-${feedId}` });
    expect(res.headers.get('location')).toBe(`/v1/merchant/${M}/feeds/${feedId}`);

    // Operators see the schedule in Temporal, starting the feedRefresh workflow on the API's task queue.
    const described = await api.temporal!.client.schedule.getHandle(scheduleId).describe();
    const taskQueue = api.config.TEMPORAL_TASK_QUEUE;
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'feedRefresh', taskQueue });
    expect(described.state.paused).toBe(false);

    const [first] = await runsWhenDone(M, token, feedId, 1);
    expect(first).toMatchObject({ trigger: 'schedule', status: 'succeeded', format: 'merchant_center_tsv', error: null });
    expect(first).toMatchObject({ rows_read: 3, added: 3, changed: 0, removed: 0, rejected: 0 });
    expect(first.workflow_id).toMatch(new RegExp(`^feed-refresh-${feedId}`));
    expect(first.bytes_read).toBe(Buffer.byteLength(served.body));
    expect(first.timings_ms.fetch).toBeGreaterThanOrEqual(0);
    expect(first.duration_ms).toBeGreaterThanOrEqual(0);
    expect(feedRequests()).toHaveLength(1);
    expect(feedRequests()[0]!.headers['if-none-match']).toBeUndefined();
    expect(await product(M, 'RF-2')).toMatchObject({ price_cents: 1250, availability: 'in_stock' });
    await api.temporal!.client.workflow.getHandle(first.workflow_id).result();
    await replayAndRecord(first.workflow_id, 'feed-refresh.json');

    const feed = await asMerchant(token, 'GET', `/v1/merchant/${M}/feeds/${feedId}`);
    expect(feed.body).toMatchObject({ feed_id: feedId, etag: '"v1"', last_run: { run_id: first.run_id, status: 'succeeded' } });
  });

  it('unchanged: a conditional GET answered 304 is recorded as not_modified and imports nothing', async () => {
    await trigger();
    const [run] = await runsWhenDone(M, token, feedId, 2);
    expect(run).toMatchObject({ status: 'not_modified', rows_read: 0, added: 0, changed: 0, removed: 0, error: null });
    expect(feedRequests()).toHaveLength(2);
    expect(feedRequests()[1]!.headers['if-none-match']).toBe('"v1"');
  });

  it('changed: only the changed product is written', async () => {
    served.body = [HEADER, row('RF-1', 'Cedar Bowl', '20.00'), row('RF-2', 'Linen Towel', '14.00'), row('RF-3', 'Clay Mug', '9.00')].join(
      '\n',
    );
    served.etag = '"v2"';
    await trigger();
    const [run] = await runsWhenDone(M, token, feedId, 3);
    expect(run).toMatchObject({ status: 'succeeded', rows_read: 3, added: 0, changed: 1, unchanged: 2, removed: 0 });
    expect(await product(M, 'RF-2')).toMatchObject({ price_cents: 1400 });
  });

  it('a row removed: its product becomes unavailable, not deleted, and its card still resolves', async () => {
    served.body = [HEADER, row('RF-1', 'Cedar Bowl', '20.00'), row('RF-2', 'Linen Towel', '14.00')].join('\n');
    served.etag = '"v3"';
    await trigger();
    const [run] = await runsWhenDone(M, token, feedId, 4);
    expect(run).toMatchObject({ status: 'succeeded', rows_read: 2, added: 0, changed: 0, unchanged: 2, removed: 1 });
    const mug = await product(M, 'RF-3');
    expect(mug).toMatchObject({ availability: 'discontinued', inventory_qty: 0 });
    const card = await call(api.url, 'GET', `/v1/products/${mug.product_id}/card`, { token: dev.apiKey });
    expect(card.status, card.text).toBe(200);
    expect(card.body.product).toMatchObject({ availability: 'discontinued', seller: { merchant_id: M } });
  });

  it('a server that hangs: the run fails with the reason within the fetch bound, and the schedule keeps going', async () => {
    served.hang = true;
    await trigger();
    const [failed] = await runsWhenDone(M, token, feedId, 5);
    expect(failed).toMatchObject({ status: 'failed', rows_read: 0, added: 0 });
    expect(failed.error).toBe(`the feed URL could not be fetched: timeout: no complete answer within ${FETCH_TIMEOUT_MS} ms`);
    // One attempt only: a feed problem is not retried within the run, so the server was asked once.
    expect(hung).toHaveLength(1);
    expect(failed.duration_ms).toBeGreaterThanOrEqual(FETCH_TIMEOUT_MS - 100);
    expect((await api.temporal!.client.schedule.getHandle(scheduleId).describe()).state.paused).toBe(false);
    // The workflow completed (a failed run does not fail the schedule's action) with the reason.
    const outcome = await api.temporal!.client.workflow.getHandle(failed.workflow_id).result();
    expect(outcome).toMatchObject({ status: 'failed', error: failed.error });
    await replayAndRecord(failed.workflow_id, 'feed-refresh-failed.json');

    // The server is back: the next run asks with the validators of the last good fetch.
    served.hang = false;
    await trigger();
    const [next] = await runsWhenDone(M, token, feedId, 6);
    expect(next).toMatchObject({ status: 'not_modified' });
    expect(feedRequests().at(-1)!.headers['if-none-match']).toBe('"v3"');
    expect(await product(M, 'RF-1')).toMatchObject({ availability: 'in_stock' });
  });

  it("another merchant finds none of this merchant's feeds; this merchant's token does not open another's path", async () => {
    const other = 'refresh-other';
    const otherToken = await registerMerchant(other);
    const paths = [
      `/v1/merchant/${other}/feeds/${feedId}`,
      `/v1/merchant/${other}/feeds/${feedId}/runs`,
      `/v1/merchant/${other}/feeds/feed_nothing`,
    ];
    for (const p of paths) {
      const res = await asMerchant(otherToken, 'GET', p);
      expect([res.status, res.body.error], p).toEqual([404, 'feed_not_found']);
    }
    expect((await asMerchant(otherToken, 'DELETE', `/v1/merchant/${other}/feeds/${feedId}`)).status).toBe(404);
    expect((await asMerchant(otherToken, 'GET', `/v1/merchant/${other}/feeds`)).body).toEqual({ feeds: [] });
    const crossed = await asMerchant(token, 'GET', `/v1/merchant/${other}/feeds`);
    expect([crossed.status, crossed.body.error]).toEqual([403, 'invalid_registration_token']);
  });

  it('a schedule lost (deleted by hand, or with a namespace reset) is back once the worker boots, and refreshes the feed', async () => {
    const client = api.temporal!.client;
    await client.schedule.getHandle(scheduleId).delete();
    await expect(client.schedule.getHandle(scheduleId).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    // A removed feed gets no schedule back.
    const removed = await db
      .insertInto('merchant_feeds')
      .values({
        feed_id: `feed_removed${Date.now()}`,
        merchant_id: M,
        url: `${feedServer.url}/old.tsv`,
        refresh_interval_s: 3600,
        status: 'deleted',
      })
      .returning('feed_id')
      .executeTakeFirstOrThrow();

    const booted = await bootWorker({ deps: { db, config: api.config }, temporal: api.temporal! });
    const others = [booted.schedules.reconciliation, booted.schedules.purge];
    try {
      await booted.worker.runUntil(Promise.resolve());
    } finally {
      await booted.close();
      for (const s of others)
        await client.schedule
          .getHandle(s.scheduleId)
          .delete()
          .catch(() => undefined);
      // The boot's system-chores loop would tick on this queue after the test.
      await client.workflow
        .getHandle(booted.systemChores.workflowId)
        .terminate('test over')
        .catch(() => undefined);
    }
    expect(booted.schedules.feeds).toEqual({ ensured: 1, created: [scheduleId] });
    const described = await client.schedule.getHandle(scheduleId).describe();
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'feedRefresh',
      taskQueue: api.config.TEMPORAL_TASK_QUEUE,
    });
    expect(described.action.type === 'startWorkflow' && described.action.args).toEqual([{ feedId, merchantId: M }]);
    expect(described.spec.intervals?.[0]?.every).toBe(3_600_000);
    await expect(client.schedule.getHandle(`feed-refresh-${removed.feed_id}`).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);

    // Idempotent: the next boot finds it in place and creates nothing.
    expect(await ensureFeedSchedules(client, db, api.config.TEMPORAL_TASK_QUEUE)).toEqual({ ensured: 1, created: [] });

    // The schedule is the feed's again: a tick refreshes it.
    await trigger();
    const [run] = await runsWhenDone(M, token, feedId, 7);
    expect(run).toMatchObject({ trigger: 'schedule', status: 'not_modified', error: null });
    expect(run.workflow_id).toMatch(new RegExp(`^feed-refresh-${feedId}`));
  });

  it('bad registrations are clear 400s', async () => {
    const post = (body: unknown) => asMerchant(token, 'POST', `/v1/merchant/${M}/feeds`, body);
    const cases: Array<[unknown, string, string]> = [
      [{ url: `${feedServer.url}/feed.tsv`, refresh_interval_s: 10 }, 'invalid_payload', 'refresh_interval_s'],
      [{ content: 'id,title,price\n1,x,1', refresh_interval_s: 3600 }, 'invalid_payload', 'url'],
      [{ url: 'ftp://shop.test/feed.tsv', refresh_interval_s: 3600 }, 'invalid_feed_url', 'url'],
    ];
    for (const [body, code, field] of cases) {
      const res = await post(body);
      expect([res.status, res.body.error], JSON.stringify(body)).toEqual([400, code]);
      expect(res.body.fields).toContain(field);
    }
  });

  it('removal deletes the schedule and keeps the products; the list and the feed are gone', async () => {
    const list = await asMerchant(token, 'GET', `/v1/merchant/${M}/feeds`);
    expect(list.body.feeds.map((f: any) => [f.feed_id, f.last_run.status])).toEqual([[feedId, 'not_modified']]);
    const del = await asMerchant(token, 'DELETE', `/v1/merchant/${M}/feeds/${feedId}`);
    expect([del.status, del.body]).toEqual([200, { feed_id: feedId, status: 'deleted' }]);
    await expect(api.temporal!.client.schedule.getHandle(scheduleId).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expect((await asMerchant(token, 'GET', `/v1/merchant/${M}/feeds/${feedId}`)).status).toBe(404);
    expect((await asMerchant(token, 'DELETE', `/v1/merchant/${M}/feeds/${feedId}`)).status).toBe(404);
    expect((await asMerchant(token, 'GET', `/v1/merchant/${M}/feeds`)).body).toEqual({ feeds: [] });
    expect(await product(M, 'RF-1')).toMatchObject({ availability: 'in_stock' });
  });
});

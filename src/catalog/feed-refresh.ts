import type { Config } from '../config';
import type { Db } from '../db/connect';
import type { MerchantFeedsTable } from '../db/schema-catalog';
import { AppError } from '../errors';
import { newId } from '../ids';
import { assertSafeEndpoint, endpointPolicy, UnsafeEndpointError } from '../registry/endpoint-safety';
import { boundedRequest, OutboundError, type OutboundResponse } from '../outbound/http';
import { iso } from '../time';
import { FeedFileError, importFeedSource, type FeedReport } from './feed-import';
import type { Selectable } from 'kysely';

/**
 * Feeds that refresh themselves (docs/CATALOG.md): a merchant registers a feed URL and an interval,
 * a Temporal Schedule per feed starts the `feedRefresh` workflow, and each run fetches the URL
 * through the outbound guard every merchant call goes through (public addresses only unless
 * ALLOW_PRIVATE_ENDPOINTS, FEED_FETCH_TIMEOUT_MS for the whole exchange, FEED_MAX_BYTES, redirects
 * checked on every hop), asks with the validators of the last good fetch (304: the run is recorded
 * as not_modified and nothing is read), and imports what changed as one transaction.
 */

export type FeedFetchConfig = Pick<Config, 'ALLOW_PRIVATE_ENDPOINTS' | 'FEED_FETCH_TIMEOUT_MS' | 'FEED_MAX_BYTES'>;

/** A feed problem the merchant must fix (unreachable URL, bad answer, unreadable file): not retried within the run. */
export class FeedRefreshError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedRefreshError';
  }
}

const MAX_REDIRECTS = 3;

/** One bounded GET of a feed URL. `validators`: the ETag / Last-Modified of the last good fetch. */
export async function fetchFeed(
  url: string,
  config: FeedFetchConfig,
  validators: { etag?: string | null; lastModified?: string | null } = {},
): Promise<OutboundResponse> {
  const headers: Record<string, string> = { accept: '*/*' };
  if (validators.etag) headers['if-none-match'] = validators.etag;
  if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
  let res: OutboundResponse;
  try {
    res = await boundedRequest(url, {
      timeoutMs: config.FEED_FETCH_TIMEOUT_MS,
      maxBytes: config.FEED_MAX_BYTES,
      maxRedirects: MAX_REDIRECTS,
      policy: endpointPolicy(config.ALLOW_PRIVATE_ENDPOINTS),
      headers,
    });
  } catch (err) {
    if (err instanceof OutboundError) throw new FeedRefreshError(`the feed URL could not be fetched: ${err.reason}: ${err.message}`);
    throw err;
  }
  if (res.status === 304 && (validators.etag || validators.lastModified)) return res;
  if (res.status < 200 || res.status > 299) throw new FeedRefreshError(`the feed URL answered HTTP ${res.status}`);
  return res;
}

type FeedRow = Selectable<MerchantFeedsTable>;

export interface FeedView {
  feed_id: string;
  merchant_id: string;
  url: string;
  refresh_interval_s: number;
  full_snapshot: boolean;
  currency: string | null;
  store_url: string | null;
  status: 'active' | 'paused';
  schedule_id: string;
  etag: string | null;
  last_modified: string | null;
  created_at: string;
  last_run: FeedRunView | null;
}

export interface FeedRunView {
  run_id: string;
  feed_id: string | null;
  trigger: string;
  status: string;
  format: string | null;
  rows_read: number;
  bytes_read: number;
  added: number;
  changed: number;
  unchanged: number;
  removed: number;
  rejected: number;
  rejections: Array<{ line: number; reason: string }>;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  timings_ms: Record<string, number>;
  workflow_id: string | null;
}

/** The Temporal Schedule of a feed: one per feed, named after it, so operators find it in the UI. */
export const feedScheduleId = (feedId: string) => `feed-refresh-${feedId}`;

export function feedView(row: FeedRow, lastRun: FeedRunView | null): FeedView {
  return {
    feed_id: row.feed_id,
    merchant_id: row.merchant_id,
    url: row.url,
    refresh_interval_s: row.refresh_interval_s,
    full_snapshot: row.full_snapshot,
    currency: row.default_currency,
    store_url: row.store_url,
    status: row.status === 'paused' ? 'paused' : 'active',
    schedule_id: feedScheduleId(row.feed_id),
    etag: row.etag,
    last_modified: row.last_modified,
    created_at: row.created_at.toISOString(),
    last_run: lastRun,
  };
}

/** Registers a feed URL (checked against the endpoint policy now; again on every fetch). */
export async function registerFeed(
  db: Db,
  config: FeedFetchConfig,
  input: {
    merchantId: string;
    url: string;
    refreshIntervalS: number;
    fullSnapshot: boolean;
    defaultCurrency?: string;
    storeUrl?: string | null;
  },
): Promise<FeedRow> {
  try {
    await assertSafeEndpoint(input.url, endpointPolicy(config.ALLOW_PRIVATE_ENDPOINTS));
  } catch (err) {
    if (err instanceof UnsafeEndpointError) {
      throw new AppError(400, 'invalid_feed_url', `The feed URL is not allowed: ${err.message}.`, { fields: ['url'] });
    }
    throw err;
  }
  return db
    .insertInto('merchant_feeds')
    .values({
      feed_id: newId('feed'),
      merchant_id: input.merchantId,
      url: input.url,
      refresh_interval_s: input.refreshIntervalS,
      full_snapshot: input.fullSnapshot,
      default_currency: input.defaultCurrency?.toUpperCase() ?? null,
      store_url: input.storeUrl ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A merchant's own registered feed; another merchant's, a deleted or an unknown one: 404. */
export async function loadFeed(db: Db, merchantId: string, feedId: string): Promise<FeedRow> {
  const row = await db
    .selectFrom('merchant_feeds')
    .selectAll()
    .where('feed_id', '=', feedId)
    .where('merchant_id', '=', merchantId)
    .where('status', '<>', 'deleted')
    .executeTakeFirst();
  if (!row) throw new AppError(404, 'feed_not_found', 'No registered feed with this id for this merchant.');
  return row;
}

export async function listFeeds(db: Db, merchantId: string): Promise<FeedView[]> {
  const rows = await db
    .selectFrom('merchant_feeds')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('status', '<>', 'deleted')
    .orderBy('created_at')
    .execute();
  return Promise.all(rows.map(async (r) => feedView(r, (await listRuns(db, r.feed_id, 1))[0] ?? null)));
}

/** Removal keeps the feed's products (they become nothing; later runs simply stop) and its run history. */
export async function markFeedDeleted(db: Db, feedId: string): Promise<void> {
  await db.updateTable('merchant_feeds').set({ status: 'deleted', updated_at: new Date() }).where('feed_id', '=', feedId).execute();
}

export async function listRuns(db: Db, feedId: string, limit: number): Promise<FeedRunView[]> {
  const rows = await db
    .selectFrom('feed_runs')
    .selectAll()
    .where('feed_id', '=', feedId)
    .orderBy('started_at', 'desc')
    .orderBy('run_id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    run_id: r.run_id,
    feed_id: r.feed_id,
    trigger: r.trigger,
    status: r.status,
    format: r.format,
    rows_read: r.rows_read,
    bytes_read: Number(r.bytes_read),
    added: r.added,
    changed: r.changed,
    unchanged: r.unchanged,
    removed: r.removed,
    rejected: r.rejected,
    rejections: r.rejections,
    error: r.error,
    started_at: r.started_at.toISOString(),
    finished_at: iso(r.finished_at),
    duration_ms: r.finished_at ? r.finished_at.getTime() - r.started_at.getTime() : null,
    timings_ms: r.timings_ms,
    workflow_id: r.workflow_id,
  }));
}

export interface FeedRefreshResult {
  runId: string;
  status: 'succeeded' | 'not_modified' | 'skipped';
  rowsRead: number;
  added: number;
  changed: number;
  removed: number;
  rejected: number;
}

/**
 * One refresh of a registered feed, recorded as run `runId` (a retried attempt reuses it). Throws
 * FeedRefreshError for what the merchant must fix; the caller records that as the run's failure.
 */
export async function refreshFeed(
  db: Db,
  config: FeedFetchConfig,
  input: { feedId: string; runId: string; workflowId: string | null },
): Promise<FeedRefreshResult> {
  const none = { rowsRead: 0, added: 0, changed: 0, removed: 0, rejected: 0 };
  const feed = await db.selectFrom('merchant_feeds').selectAll().where('feed_id', '=', input.feedId).executeTakeFirst();
  // A run that fires while the feed is being removed (or is paused) does nothing and records nothing.
  if (!feed || feed.status !== 'active') return { runId: input.runId, status: 'skipped', ...none };
  const run = {
    run_id: input.runId,
    merchant_id: feed.merchant_id,
    feed_id: feed.feed_id,
    trigger: 'schedule' as const,
    full_snapshot: feed.full_snapshot,
    workflow_id: input.workflowId,
  };
  await db
    .insertInto('feed_runs')
    .values({ ...run, status: 'running' })
    .onConflict((oc) => oc.column('run_id').doUpdateSet({ status: 'running', error: null, finished_at: null }))
    .execute();

  const started = Date.now();
  const res = await fetchFeed(feed.url, config, { etag: feed.etag, lastModified: feed.last_modified });
  const fetchMs = Date.now() - started;
  if (res.status === 304) {
    await db
      .updateTable('feed_runs')
      .set({ status: 'not_modified', timings_ms: JSON.stringify({ fetch: fetchMs }), finished_at: new Date() })
      .where('run_id', '=', input.runId)
      .execute();
    return { runId: input.runId, status: 'not_modified', ...none };
  }
  const header = (name: string) => {
    const v = res.headers[name];
    return typeof v === 'string' && v.length <= 1024 ? v : null;
  };
  let report: FeedReport;
  try {
    report = await importFeedSource(
      db,
      (async function* () {
        yield res.body;
      })(),
      {
        merchantId: feed.merchant_id,
        fullSnapshot: feed.full_snapshot,
        defaultCurrency: feed.default_currency ?? undefined,
        storeUrl: feed.store_url,
        feedId: feed.feed_id,
        runId: input.runId,
        workflowId: input.workflowId,
        trigger: 'schedule',
        timingsMs: { fetch: fetchMs },
        // The validators are kept only once the content they describe is in the catalog, and before
        // the run reads as succeeded: the next refresh (or a reader of the run) finds them.
        beforeFinish: async () => {
          await db
            .updateTable('merchant_feeds')
            .set({ etag: header('etag'), last_modified: header('last-modified'), updated_at: new Date() })
            .where('feed_id', '=', feed.feed_id)
            .execute();
        },
      },
    );
  } catch (err) {
    if (err instanceof FeedFileError) throw new FeedRefreshError(`the feed cannot be imported, nothing was: ${err.message}`);
    throw err;
  }
  const { rows_read: rowsRead, imported: added, changed, removed, rejected } = report;
  return { runId: input.runId, status: 'succeeded', rowsRead, added, changed, removed, rejected };
}

/** The run's failure, with the reason shown on GET …/runs; the feed keeps its schedule. */
export async function recordRefreshFailure(
  db: Db,
  input: { feedId: string; runId: string; workflowId: string | null; error: string },
): Promise<void> {
  const feed = await db
    .selectFrom('merchant_feeds')
    .select(['merchant_id', 'full_snapshot'])
    .where('feed_id', '=', input.feedId)
    .executeTakeFirst();
  if (!feed) return;
  const error = input.error.slice(0, 2000);
  await db
    .insertInto('feed_runs')
    .values({
      run_id: input.runId,
      merchant_id: feed.merchant_id,
      feed_id: input.feedId,
      trigger: 'schedule',
      full_snapshot: feed.full_snapshot,
      workflow_id: input.workflowId,
      status: 'failed',
      error,
      finished_at: new Date(),
    })
    .onConflict((oc) => oc.column('run_id').doUpdateSet({ status: 'failed', error, finished_at: new Date() }))
    .execute();
}

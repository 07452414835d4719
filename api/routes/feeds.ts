import { AppError, temporalUnavailable } from '../../src/errors';
import { FeedFileError, importFeedSource } from '../../src/catalog/feed-import';
import { requestCatalogEmbedding } from '../../src/catalog-embedding/client';
import {
  FeedRefreshError,
  feedView,
  fetchFeed,
  listFeeds,
  listRuns,
  loadFeed,
  markFeedDeleted,
  registerFeed,
} from '../../src/catalog/feed-refresh';
import { listMerchantProducts } from '../../src/catalog/merchant-products';
import { scheduleFeedRefresh, unscheduleFeedRefresh } from '../../src/feed-refresh/client';
import * as S from '../../src/schemas/feeds';
import { merchantToken } from './merchants';
import { auth, linkTo, type ErrorRow, type RouteRegistry } from './registry';

const TAG = 'Merchant catalogs';
const DEFAULT_RUNS_SHOWN = 20;

const tokenErrors: ErrorRow[] = [
  [401, 'missing_registration_token', 'Missing registration token (X-Merchant-Token).'],
  [403, 'invalid_registration_token', 'Invalid registration token.'],
  [404, 'merchant_not_found', 'No merchant agent with this id.'],
];
const merchantAuth = () =>
  auth.apiKeyAnd(
    'registry',
    'MerchantToken',
    merchantToken((ctx) => ctx.params.merchantId),
    tokenErrors,
  );
const feedNotFound: ErrorRow = [
  404,
  'feed_not_found',
  "No registered feed with this id for this merchant (another merchant's feed is not found either).",
];

export function feedRoutes(r: RouteRegistry): void {
  r.add({
    method: 'post',
    path: '/v1/merchant/{merchantId}/feeds',
    tag: TAG,
    summary: 'Import a product feed',
    description:
      "Imports a product feed into the merchant's catalog: a Shopify product CSV export, a Google Merchant Center TSV or XML (RSS 2.0 / Atom) feed, an ACP product feed (JSON Lines) or the gateway's own CSV/JSONL, detected from the content (docs/CATALOG.md). Give the feed as `content`, or a `url` to fetch. Products are keyed by the merchant's own ids; bad rows are rejected with their line and the rest imported in one transaction. Answers the run record with its counts and, for the feed's first 1000 products, the merchant's ids beside the gateway's `product_id` (all of them: GET /v1/merchant/{merchantId}/products). With `url` and `refresh_interval_s` the feed is registered instead (201): a Temporal Schedule per feed refreshes it from then on (conditional GET; its runs at GET …/feeds/{feedId}/runs), the first run starting now.",
    auth: merchantAuth(),
    params: S.FeedMerchantParams,
    body: S.FeedImportBody,
    bodyRequired: true,
    notFoundCode: 'merchant_not_found',
    responses: {
      200: {
        description:
          "The import run: rows read, added, changed, unchanged, removed and rejected (with reasons), and the merchant's ids of the first products beside the gateway's.",
        schema: S.FeedRun,
        links: {
          ListMerchantProducts: linkTo('get', '/v1/merchant/{merchantId}/products', {
            parameters: { 'path.merchantId': '$request.path.merchantId' },
          }),
        },
      },
      201: { description: 'The registered feed, with its schedule id (Location: the feed).', schema: S.MerchantFeed },
    },
    errors: [
      [400, 'invalid_feed_url', 'The feed URL to register is not allowed (scheme, credentials, or a non-public address).'],
      [503, 'temporal_unavailable', 'Registering a feed needs Temporal, which is not reachable; nothing was registered.'],
      [
        400,
        'invalid_feed',
        'The feed cannot be read as a whole (unknown format, missing required columns, malformed XML, unterminated quote); nothing was imported.',
      ],
      [
        422,
        'feed_unavailable',
        'The feed URL could not be fetched (unsafe address, unreachable, timeout, too large, too many redirects or a non-2xx answer).',
      ],
    ],
    handler: async (ctx, { params, body }) => {
      if ((body.content === undefined) === (body.url === undefined)) {
        throw new AppError(400, 'invalid_payload', 'Give exactly one of content or url.', { fields: ['content', 'url'] });
      }
      if (body.refresh_interval_s !== undefined) {
        if (body.url === undefined) {
          throw new AppError(400, 'invalid_payload', 'A feed refreshed on a schedule needs a url, not content.', { fields: ['url'] });
        }
        if (!ctx.deps.temporal) throw temporalUnavailable('Feed refresh');
        const feed = await registerFeed(ctx.deps.db, ctx.deps.config, {
          merchantId: params.merchantId,
          url: body.url,
          refreshIntervalS: body.refresh_interval_s,
          fullSnapshot: body.full_snapshot ?? true,
          defaultCurrency: body.currency,
          storeUrl: body.store_url ?? null,
        });
        try {
          const schedule = { feedId: feed.feed_id, merchantId: feed.merchant_id, refreshIntervalS: feed.refresh_interval_s };
          await scheduleFeedRefresh(ctx.deps.temporal, schedule);
        } catch (err) {
          // No schedule, no feed: a retry registers it afresh.
          await markFeedDeleted(ctx.deps.db, feed.feed_id);
          throw err;
        }
        const location = `/v1/merchant/${encodeURIComponent(params.merchantId)}/feeds/${feed.feed_id}`;
        return { status: 201, headers: { location }, body: feedView(feed, null) };
      }
      let bytes: Buffer;
      if (body.content !== undefined) bytes = Buffer.from(body.content, 'utf8');
      else {
        try {
          bytes = (await fetchFeed(body.url!, ctx.deps.config)).body;
        } catch (err) {
          if (!(err instanceof FeedRefreshError)) throw err;
          throw new AppError(422, 'feed_unavailable', `${err.message[0]!.toUpperCase()}${err.message.slice(1)}.`);
        }
      }
      try {
        const report = await importFeedSource(
          ctx.deps.db,
          (async function* () {
            yield bytes;
          })(),
          {
            merchantId: params.merchantId,
            fullSnapshot: body.full_snapshot ?? false,
            defaultCurrency: body.currency,
            storeUrl: body.store_url ?? null,
            trigger: 'api',
            mapIds: S.IMPORT_ID_MAP_LIMIT,
          },
        );
        // New and changed products become searchable by meaning as the embedding walk reaches them.
        if (report.imported + report.changed > 0) await requestCatalogEmbedding(ctx.deps.temporal);
        return {
          body: {
            run_id: report.run_id,
            merchant_id: report.merchant_id,
            format: report.format,
            rows_read: report.rows_read,
            added: report.imported,
            changed: report.changed,
            unchanged: report.unchanged,
            removed: report.removed,
            rejected: report.rejected,
            rejections: report.skipped.slice(0, 1000),
            product_count: report.imported + report.updated,
            products: report.products,
          },
        };
      } catch (err) {
        if (err instanceof FeedFileError)
          throw new AppError(400, 'invalid_feed', `The feed cannot be imported, nothing was: ${err.message}`);
        throw err;
      }
    },
  });

  r.add({
    method: 'get',
    path: '/v1/merchant/{merchantId}/products',
    tag: TAG,
    summary: "List a merchant's products with their ids",
    description:
      "The merchant's feed products, each with the gateway's `product_id` beside the merchant's own `external_id` (the feed's id, or the id grouping its variant rows) and its variants' ids and SKUs, with title, price, link and availability: the map from the merchant's ids to the gateway's. Products a full snapshot left out are listed too, discontinued. In the order of external_id, a page at a time: pass a page's `next_cursor` as `cursor` to get the next (null on the last page).",
    auth: merchantAuth(),
    params: S.FeedMerchantParams,
    query: S.MerchantProductsQuery,
    notFoundCode: 'merchant_not_found',
    responses: { 200: { description: 'A page of products, in the order of external_id.', schema: S.MerchantProductList } },
    handler: async (ctx, { params, query }) => ({
      body: { merchant_id: params.merchantId, ...(await listMerchantProducts(ctx.deps.db, params.merchantId, query)) },
    }),
  });

  r.add({
    method: 'get',
    path: '/v1/merchant/{merchantId}/feeds',
    tag: TAG,
    summary: "List a merchant's registered feeds",
    description: 'The feeds this merchant registered for scheduled refresh, each with its schedule id and its latest run.',
    auth: merchantAuth(),
    params: S.FeedMerchantParams,
    notFoundCode: 'merchant_not_found',
    responses: { 200: { description: 'The registered feeds, oldest first.', schema: S.MerchantFeedList } },
    handler: async (ctx, { params }) => ({ body: { feeds: await listFeeds(ctx.deps.db, params.merchantId) } }),
  });

  r.add({
    method: 'get',
    path: '/v1/merchant/{merchantId}/feeds/{feedId}',
    tag: TAG,
    summary: 'Get a registered feed',
    description: 'One registered feed: URL, interval, the validators of its last good fetch, its schedule id and its latest run.',
    auth: merchantAuth(),
    params: S.FeedIdParams,
    notFoundCode: 'feed_not_found',
    responses: { 200: { description: 'The feed.', schema: S.MerchantFeed } },
    errors: [feedNotFound],
    handler: async (ctx, { params }) => {
      const feed = await loadFeed(ctx.deps.db, params.merchantId, params.feedId);
      return { body: feedView(feed, (await listRuns(ctx.deps.db, feed.feed_id, 1))[0] ?? null) };
    },
  });

  r.add({
    method: 'delete',
    path: '/v1/merchant/{merchantId}/feeds/{feedId}',
    tag: TAG,
    summary: 'Remove a registered feed',
    description:
      "Deletes the feed's schedule and removes the feed: no further refreshes. Its products stay in the catalog as they are (old cards and clicks still resolve) and its runs stay readable to operators; a second delete is a 404.",
    auth: merchantAuth(),
    params: S.FeedIdParams,
    notFoundCode: 'feed_not_found',
    responses: { 200: { description: 'The feed is removed.', schema: S.FeedDeleted } },
    errors: [
      feedNotFound,
      [503, 'temporal_unavailable', 'Removing a feed needs Temporal to delete its schedule, which is not reachable; nothing was changed.'],
    ],
    handler: async (ctx, { params }) => {
      const feed = await loadFeed(ctx.deps.db, params.merchantId, params.feedId);
      await unscheduleFeedRefresh(ctx.deps.temporal, feed.feed_id);
      await markFeedDeleted(ctx.deps.db, feed.feed_id);
      return { body: { feed_id: feed.feed_id, status: 'deleted' as const } };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/merchant/{merchantId}/feeds/{feedId}/runs',
    tag: TAG,
    summary: "List a registered feed's runs",
    description:
      'The runs of a registered feed, newest first: status (running, succeeded, not_modified, failed with its reason), rows read, added, changed, unchanged, removed and rejected (with line and reason), bytes read, start, finish and milliseconds per phase. A running import shows its counts so far.',
    auth: merchantAuth(),
    params: S.FeedIdParams,
    query: S.FeedRunsQuery,
    notFoundCode: 'feed_not_found',
    responses: { 200: { description: 'The runs, newest first.', schema: S.FeedRunList } },
    errors: [feedNotFound],
    handler: async (ctx, { params, query }) => {
      const feed = await loadFeed(ctx.deps.db, params.merchantId, params.feedId);
      return { body: { runs: await listRuns(ctx.deps.db, feed.feed_id, query.limit ?? DEFAULT_RUNS_SHOWN) } };
    },
  });
}

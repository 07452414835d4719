import { AppError } from '../../src/errors';
import { FeedFileError, importFeedSource } from '../../src/catalog/feed-import';
import { endpointPolicy } from '../../src/registry/endpoint-safety';
import { boundedRequest, OutboundError } from '../../src/outbound/http';
import * as S from '../../src/schemas/feeds';
import { merchantToken } from './merchants';
import { auth, type ErrorRow, type RouteRegistry } from './registry';

const TAG = 'Merchant catalogs';
/** A feed fetched by URL is held in memory once: this caps it (the CLI streams files of any size). */
const MAX_FEED_BYTES = 50 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 60_000;

const tokenErrors: ErrorRow[] = [
  [401, 'missing_registration_token', 'Missing registration token (X-Merchant-Token).'],
  [403, 'invalid_registration_token', 'Invalid registration token.'],
  [404, 'merchant_not_found', 'No merchant agent with this id.'],
];

export function feedRoutes(r: RouteRegistry): void {
  r.add({
    method: 'post',
    path: '/v1/merchant/{merchantId}/feeds',
    tag: TAG,
    summary: 'Import a product feed',
    description:
      "Imports a product feed into the merchant's catalog: a Shopify product CSV export, a Google Merchant Center TSV or XML (RSS 2.0 / Atom) feed, an ACP product feed (JSON Lines) or the gateway's own CSV/JSONL, detected from the content (docs/CATALOG.md). Give the feed as `content`, or a `url` to fetch. Products are keyed by the merchant's own ids; bad rows are rejected with their line and the rest imported in one transaction. Answers the run record with its counts.",
    auth: auth.apiKeyAnd('registry', 'MerchantToken', merchantToken((ctx) => ctx.params.merchantId), tokenErrors),
    params: S.FeedMerchantParams,
    body: S.FeedImportBody,
    bodyRequired: true,
    notFoundCode: 'merchant_not_found',
    responses: { 200: { description: 'The import run: rows read, added, changed, unchanged, removed and rejected (with reasons).', schema: S.FeedRun } },
    errors: [
      [400, 'invalid_feed', 'The feed cannot be read as a whole (unknown format, missing required columns, malformed XML, unterminated quote); nothing was imported.'],
      [422, 'feed_unavailable', 'The feed URL could not be fetched (unsafe address, unreachable, timeout, too large, too many redirects or a non-2xx answer).'],
    ],
    handler: async (ctx, { params, body }) => {
      if ((body.content === undefined) === (body.url === undefined)) {
        throw new AppError(400, 'invalid_payload', 'Give exactly one of content or url.', { fields: ['content', 'url'] });
      }
      let bytes: Buffer;
      if (body.content !== undefined) bytes = Buffer.from(body.content, 'utf8');
      else {
        try {
          const res = await boundedRequest(body.url!, { timeoutMs: FETCH_TIMEOUT_MS, maxBytes: MAX_FEED_BYTES, maxRedirects: 3, policy: endpointPolicy(ctx.deps.config.ALLOW_PRIVATE_ENDPOINTS) });
          if (res.status < 200 || res.status > 299) throw new AppError(422, 'feed_unavailable', `The feed URL answered HTTP ${res.status}.`);
          bytes = res.body;
        } catch (err) {
          if (err instanceof OutboundError) throw new AppError(422, 'feed_unavailable', `The feed URL could not be fetched: ${err.reason}: ${err.message}`);
          throw err;
        }
      }
      try {
        const report = await importFeedSource(ctx.deps.db, (async function* () { yield bytes; })(), {
          merchantId: params.merchantId,
          fullSnapshot: body.full_snapshot ?? false,
          defaultCurrency: body.currency,
          storeUrl: body.store_url ?? null,
          trigger: 'api',
        });
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
          },
        };
      } catch (err) {
        if (err instanceof FeedFileError) throw new AppError(400, 'invalid_feed', `The feed cannot be imported, nothing was: ${err.message}`);
        throw err;
      }
    },
  });
}

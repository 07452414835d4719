import { z } from 'zod';
import { MERCHANT_PRODUCTS_DEFAULT_LIMIT, MERCHANT_PRODUCTS_MAX_LIMIT } from '../catalog/merchant-products';
import { pathId } from './common';

/** How many products an import through the API maps in its answer (the rest: the merchant's product listing). */
export const IMPORT_ID_MAP_LIMIT = 1000;

const ImportedProductIds = z
  .object({
    external_id: z.string().meta({ description: "The merchant's own id of the product (the feed's id, or the id grouping its variants)." }),
    product_id: z.number().int().meta({ description: "The gateway's id of the product." }),
    variant_ids: z.array(z.string()).meta({ description: "The feed's ids of its variants; empty when the product is its only offer." }),
  })
  .meta({ id: 'ImportedProductIds' });

/** The bounds of a registered feed's refresh interval (the merchant_feeds check constraint). */
export const MIN_REFRESH_INTERVAL_S = 300;
export const MAX_REFRESH_INTERVAL_S = 604_800;

export const FeedMerchantParams = z.object({ merchantId: pathId(128) });

export const FeedImportBody = z
  .strictObject({
    content: z
      .string()
      .min(1)
      .max(900_000)
      .optional()
      .meta({ description: 'The feed itself (any supported format, detected from the content).' }),
    url: z.string().url().max(2048).optional().meta({
      description:
        'Where to fetch the feed: one bounded GET through the same outbound guard as every merchant call (public addresses only, size and time bounds, redirects checked).',
    }),
    full_snapshot: z.boolean().optional().meta({
      description:
        "true: the feed is the merchant's whole catalog, and its feed products missing from it become unavailable (never deleted).",
    }),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/)
      .optional()
      .meta({ description: 'Currency of prices that name none (a Shopify export); default USD.' }),
    store_url: z
      .string()
      .url()
      .max(2048)
      .optional()
      .meta({ description: "Storefront origin; a Shopify product's link is {store_url}/products/{handle}." }),
    refresh_interval_s: z
      .number()
      .int()
      .min(MIN_REFRESH_INTERVAL_S)
      .max(MAX_REFRESH_INTERVAL_S)
      .optional()
      .meta({
        description: `With \`url\`: register the feed instead of importing it once. A Temporal Schedule then refreshes it every refresh_interval_s seconds (${MIN_REFRESH_INTERVAL_S}..${MAX_REFRESH_INTERVAL_S}), the first run starting now; full_snapshot defaults to true.`,
      }),
  })
  .meta({ id: 'FeedImportRequest' });

export const FeedIdParams = z.object({ merchantId: pathId(128), feedId: z.string().min(1).max(64) });

export const FeedRunsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional().meta({ description: 'Newest first; default 20.' }),
});

export const FeedRunRecord = z
  .object({
    run_id: z.string(),
    feed_id: z.string().nullable(),
    trigger: z.enum(['cli', 'api', 'schedule']),
    status: z
      .enum(['running', 'succeeded', 'failed', 'not_modified'])
      .meta({ description: 'not_modified: the feed URL answered 304 to the validators of the last good fetch; nothing was read.' }),
    format: z.string().nullable(),
    rows_read: z
      .number()
      .int()
      .meta({ description: 'Rows read so far while running (updated about once a second), all of them once finished.' }),
    bytes_read: z.number().int(),
    added: z.number().int(),
    changed: z.number().int(),
    unchanged: z.number().int(),
    removed: z.number().int().meta({ description: 'Products missing from the (full) feed, now unavailable; never deleted.' }),
    rejected: z.number().int(),
    rejections: z.array(z.object({ line: z.number().int(), reason: z.string() })),
    error: z
      .string()
      .nullable()
      .meta({ description: 'Why a failed run failed (fetch, HTTP status, or a feed that cannot be read as a whole).' }),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    timings_ms: z
      .record(z.string(), z.number())
      .meta({ description: 'Milliseconds per phase: fetch, parse_copy, dedupe, group, update, insert, remove, commit.' }),
    workflow_id: z.string().nullable().meta({ description: 'The Temporal workflow that ran a scheduled refresh.' }),
  })
  .meta({ id: 'FeedRunRecord' });

export const MerchantFeed = z
  .object({
    feed_id: z.string(),
    merchant_id: z.string(),
    url: z.string(),
    refresh_interval_s: z.number().int(),
    full_snapshot: z.boolean(),
    currency: z.string().nullable().meta({ description: 'Currency of prices that name none, as registered (default USD).' }),
    store_url: z.string().nullable().meta({ description: 'Storefront origin for product links of a Shopify export, as registered.' }),
    status: z.enum(['active', 'paused']),
    schedule_id: z
      .string()
      .meta({ description: 'The Temporal Schedule that refreshes the feed (operators see, pause and trigger it in the Temporal UI).' }),
    etag: z.string().nullable(),
    last_modified: z.string().nullable(),
    created_at: z.string(),
    last_run: FeedRunRecord.nullable(),
  })
  .meta({ id: 'MerchantFeed' });

export const MerchantFeedList = z.object({ feeds: z.array(MerchantFeed) }).meta({ id: 'MerchantFeedList' });
export const FeedRunList = z.object({ runs: z.array(FeedRunRecord) }).meta({ id: 'FeedRunList' });
export const FeedDeleted = z.object({ feed_id: z.string(), status: z.literal('deleted') }).meta({ id: 'FeedDeleted' });

export const FeedRun = z
  .object({
    run_id: z.string(),
    merchant_id: z.string(),
    format: z.string().nullable().meta({
      description:
        'Detected format: shopify_csv, merchant_center_tsv, merchant_center_rss, merchant_center_atom, acp_jsonl, csv, tsv or jsonl.',
    }),
    rows_read: z.number().int(),
    added: z.number().int(),
    changed: z.number().int(),
    unchanged: z.number().int(),
    removed: z.number().int().meta({ description: 'Products of a full snapshot missing from it, now unavailable.' }),
    rejected: z.number().int(),
    rejections: z
      .array(z.object({ line: z.number().int(), reason: z.string() }))
      .meta({ description: 'Rejected rows with their line and reason (the first 1000).' }),
    product_count: z
      .number()
      .int()
      .meta({ description: 'Products the feed holds (added + changed + unchanged); `products` maps the first of them.' }),
    products: z.array(ImportedProductIds).meta({
      description: `The merchant's ids beside the gateway's for the feed's first ${IMPORT_ID_MAP_LIMIT} products, in feed order. When product_count is larger, GET /v1/merchant/{merchantId}/products lists them all.`,
    }),
  })
  .meta({ id: 'FeedRun' });

export const MerchantProductsQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MERCHANT_PRODUCTS_MAX_LIMIT)
    .optional()
    .meta({ description: `Products per page, 1..${MERCHANT_PRODUCTS_MAX_LIMIT}, default ${MERCHANT_PRODUCTS_DEFAULT_LIMIT}.` }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,700}$/)
    .optional()
    .meta({ description: 'Where the page starts: the next_cursor of the page before (opaque). Without it, the first page.' }),
});

const MerchantProductVariant = z
  .object({
    variant_id: z.string().meta({ description: "The feed's id of the variant (as POST /v1/proposals takes it in variant_id)." }),
    sku: z.string().nullable().meta({ description: 'Its SKU, when the feed states one (variant_id accepts it too).' }),
    title: z.string().nullable(),
    price: z.number().meta({ description: "Major units of the product's currency." }),
    availability: z.string(),
    link: z.string().nullable(),
  })
  .meta({ id: 'MerchantProductVariant' });

export const MerchantProduct = z
  .object({
    product_id: z.number().int().meta({ description: "The gateway's id of the product (POST /v1/proposals product_id)." }),
    external_id: z.string().nullable().meta({
      description:
        "The merchant's own id of the product: its feed `id`, or the id that groups its variant rows (item_group_id, Shopify Handle, ACP product id). POST /v1/proposals takes it in external_id.",
    }),
    title: z.string(),
    price: z
      .object({ amount: z.number(), currency: z.string(), compare_at: z.number().nullable() })
      .meta({ description: "The price in the product's own currency (major units); compare_at when discounted." }),
    link: z.string().nullable(),
    availability: z.enum(['in_stock', 'out_of_stock', 'preorder', 'backorder', 'discontinued']),
    variants: z
      .array(MerchantProductVariant)
      .meta({ description: 'The variants its feed lists; empty when the product is its only offer.' }),
  })
  .meta({ id: 'MerchantProduct' });

export const MerchantProductList = z
  .object({
    merchant_id: z.string(),
    products: z.array(MerchantProduct).meta({ description: "In the order of external_id (the merchant's own ids)." }),
    next_cursor: z.string().nullable().meta({ description: 'Pass it as `cursor` for the next page; null on the last page.' }),
  })
  .meta({ id: 'MerchantProductList' });

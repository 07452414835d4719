import { z } from 'zod';

export const FeedMerchantParams = z.object({ merchantId: z.string().min(1).max(128) });

export const FeedImportBody = z
  .object({
    content: z.string().min(1).max(900_000).optional().meta({ description: 'The feed itself (any supported format, detected from the content).' }),
    url: z.string().url().max(2048).optional().meta({ description: 'Where to fetch the feed: one bounded GET through the same outbound guard as every merchant call (public addresses only, size and time bounds, redirects checked).' }),
    full_snapshot: z.boolean().optional().meta({ description: "true: the feed is the merchant's whole catalog, and its feed products missing from it become unavailable (never deleted)." }),
    currency: z.string().regex(/^[A-Za-z]{3}$/).optional().meta({ description: 'Currency of prices that name none (a Shopify export); default USD.' }),
    store_url: z.string().url().max(2048).optional().meta({ description: "Storefront origin; a Shopify product's link is {store_url}/products/{handle}." }),
  })
  .meta({ id: 'FeedImportRequest' });

export const FeedRun = z
  .object({
    run_id: z.string(),
    merchant_id: z.string(),
    format: z.string().nullable().meta({ description: 'Detected format: shopify_csv, merchant_center_tsv, merchant_center_rss, merchant_center_atom, acp_jsonl, csv, tsv or jsonl.' }),
    rows_read: z.number().int(),
    added: z.number().int(),
    changed: z.number().int(),
    unchanged: z.number().int(),
    removed: z.number().int().meta({ description: 'Products of a full snapshot missing from it, now unavailable.' }),
    rejected: z.number().int(),
    rejections: z.array(z.object({ line: z.number().int(), reason: z.string() })).meta({ description: 'Rejected rows with their line and reason (the first 1000).' }),
  })
  .meta({ id: 'FeedRun' });

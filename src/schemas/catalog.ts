import { z } from 'zod';
import { isoDateTime } from './common';

/** Catalog objects and the Product Card Document (docs/CATALOG.md). Optional fields are sent as null. */

const optionalText = z.string().nullable().optional();
const optionalNumber = z.number().nullable().optional();

export const ProductVariant = z
  .object({
    id: z.string().meta({ description: "The feed's variant id (SKU, Merchant Center id or ACP variant id)." }),
    sku: z.string().nullable(),
    title: z.string().nullable(),
    options: z.array(z.object({ name: z.string(), value: z.string() })),
    price: z.number(),
    compare_at_price: z.number().nullable(),
    availability: z.string(),
    inventory_qty: z.number().int(),
    image: z.string().nullable(),
  })
  .meta({ id: 'ProductVariant' });

export const Product = z
  .object({
    id: z.string().meta({ description: 'Catalog product id (integer as a string).' }),
    external_id: optionalText.meta({
      description:
        "The merchant's own id of the product: its feed id, or the id grouping its variant rows (GET /v1/merchant/{merchantId}/products). null for a product that did not come from a feed; absent from cards issued before it was added.",
    }),
    title: z.string(),
    brand: optionalText,
    price_usd: optionalNumber.meta({ description: 'Current price in USD; null when the product is priced in another currency.' }),
    original_price_usd: optionalNumber.meta({ description: 'Price before discount, when discounted.' }),
    discount_label: optionalText.meta({ description: 'E.g. `-20%`.' }),
    main_image: optionalText,
    gallery: z.array(z.string()),
    category_l1: optionalText,
    category_l2: optionalText,
    price: z.object({ amount: z.number(), currency: z.string(), compare_at: z.number().nullable() }).optional().meta({
      description:
        "The price in the product's own currency (major units; 2400 JPY is 2400, 12.345 KWD is 12.345); compare_at when discounted.",
    }),
    availability: z
      .enum(['in_stock', 'out_of_stock', 'preorder', 'backorder', 'discontinued'])
      .optional()
      .meta({ description: 'discontinued: no longer in its merchant’s feed.' }),
    seller: z
      .object({ merchant_id: z.string(), name: z.string().nullable() })
      .optional()
      .meta({ description: 'The merchant selling the product (whose catalog it is in); name as its feed states it.' }),
    variants: z
      .array(ProductVariant)
      .optional()
      .meta({ description: 'The purchasable variants its feed lists; empty when the product itself is the only offer.' }),
  })
  .meta({ id: 'Product' });

export const KeyBenefit = z.object({ icon: z.string(), title: z.string(), desc: z.string() }).meta({ id: 'KeyBenefit' });

export const HeroPitch = z
  .object({
    one_liner: z.string(),
    why_it_wins_on_platform: z.string(),
    key_benefits: z.array(KeyBenefit),
    target_audience: z.object({ persona: z.string(), age: z.string(), region: z.array(z.string()) }),
  })
  .meta({ id: 'HeroPitch' });

export const SelectionStory = z
  .object({
    headline: z.string(),
    bullets: z.array(z.string()),
    platform_score: z.number().meta({ description: '0..100: how strongly the platform data backs this product.' }),
  })
  .meta({ id: 'SelectionStory' });

export const Video = z
  .object({
    task_id: z.string(),
    creator: z.object({ username: z.string(), display_name: z.string(), avatar: z.string(), followers: z.number().int() }),
    thumbnail: optionalText,
    video_url: optionalText,
    duration_s: z.number().int(),
    gmv_usd: z.number(),
    orders: z.number().int(),
    views: z.number().int(),
    conversion_score: z.number().meta({ description: '0..1: orders per view against a 10% benchmark.' }),
    platform_video_url: optionalText,
  })
  .meta({ id: 'Video' });

const Link = z.object({ label: z.string(), url: z.string() });

export const Cta = z.object({ primary: Link, secondary: Link }).meta({ id: 'Cta' });

export const RISK_LEVELS = ['low', 'medium', 'high'] as const;

export const Compliance = z
  .object({
    region_allow: z.array(z.string()).meta({ description: 'ISO country codes the product may be sold to; empty means everywhere.' }),
    risk_level: z.enum(RISK_LEVELS),
  })
  .meta({ id: 'Compliance' });

const AVAILABILITY = ['in_stock', 'out_of_stock', 'preorder', 'backorder', 'discontinued'] as const;

export const ProductOffer = z
  .object({
    product_id: z.string().meta({ description: "Catalog id of this seller's listing (integer as a string)." }),
    external_id: z.string().nullable().meta({ description: "The seller's own id of the listing; null when it did not come from a feed." }),
    merchant_id: z.string().meta({ description: 'The merchant selling it (whose catalog the listing is in).' }),
    seller: z.string().nullable().meta({ description: 'The seller name its feed states (`seller_name`); null when the feed names none.' }),
    title: z.string().meta({ description: "The listing's title as this seller words it." }),
    price_usd: z.number().nullable().meta({ description: 'Price in USD; null when this seller prices it in another currency.' }),
    price: z.object({ amount: z.number(), currency: z.string(), compare_at: z.number().nullable() }).meta({
      description: "The price in the listing's own currency (major units), compare_at when discounted.",
    }),
    availability: z.enum(AVAILABILITY),
    inventory_qty: z.number().int(),
    rec_id: z.string().meta({
      description:
        "This offer's own rec_id: the card's rec_id for the card's product, another issued card (GET /v1/cards/{recId}) for each other seller's listing.",
    }),
    url: z.string().meta({
      description: 'The attributed link to buy from this seller, `${PUBLIC_BASE_URL}/r/<rec_id>`: pass it to the shopper verbatim.',
    }),
    link: z.string().nullable().meta({ description: "The seller's product page as its feed gives it (not attributed); null when none." }),
    proposal_id: z.string().nullable().meta({
      description:
        "GET /v1/recommend: this offer's catalog proposal in the recommendation's match session (accept it with POST /v1/match/{id}/accept and this proposal_id). null on cards issued elsewhere.",
    }),
  })
  .meta({ id: 'ProductOffer' });

export const ProductCardDocument = z
  .object({
    rec_id: z.string().meta({ description: 'Globally unique recommendation id.' }),
    product: Product,
    hero_pitch: HeroPitch,
    selection_story: SelectionStory,
    videos: z.array(Video).meta({ description: 'Up to three top videos by GMV.' }),
    cta: Cta,
    compliance: Compliance.optional(),
    offers: z.array(ProductOffer).min(1).optional().meta({
      description:
        "Who sells this product: one offer per seller, the card's own product among them. A recommendation finds the same product from several merchants (same GTIN, or brand and MPN, or the same title and variant) and shows it as one card listing every seller found; other cards list their own product alone. Ordered: available offers before unavailable ones, the card's currency before others, then price ascending, then the recommendation's rank. Absent from cards issued before it was added.",
    }),
    generated_at: isoDateTime,
    channel: z.string().nullable().optional(),
  })
  .meta({ id: 'ProductCardDocument' });

export type ProductCardDocumentT = z.infer<typeof ProductCardDocument>;
export type VideoT = z.infer<typeof Video>;
export type ProductOfferT = z.infer<typeof ProductOffer>;

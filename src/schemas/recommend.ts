import { z } from 'zod';
import { ProductCardDocument } from './catalog';
import { countryCode, isoDateTime, text } from './common';
import { Proposal } from './proposals';
import { MATCH_TIERS } from '../recommend/retrieval';

export const RecIdParams = z.object({ recId: z.string().min(1).max(100) });
export const ProductIdParams = z.object({ productId: z.string().min(1).max(20) });
export const CardQuery = z.object({
  channel: text(64).optional().meta({ description: 'Recorded with the card and its clicks.' }),
});

export const CreatorParams = z.object({ username: z.string().min(1).max(100) });
export const ShowcaseQuery = z.object({
  limit: z.coerce.number().int().min(1).max(10).default(6),
  channel: text(64).optional(),
});
export const ShowcaseResponse = z
  .object({ username: z.string(), count: z.number().int(), items: z.array(ProductCardDocument) })
  .meta({ id: 'ShowcaseResponse' });

export const RecommendQuery = z.object({
  intent: text(500, 'intent is required: the shopping intent in natural language, e.g. "running shoes under $80".'),
  limit: z.coerce.number().int().min(1).max(10).default(3),
  region: countryCode.optional().meta({ description: 'Ship-to country; wins over a region named in the intent text.' }),
  channel: text(64).optional().meta({
    description: 'Client hint, recorded with the cards and their clicks. `portal_demo` works without an API key (rate-limited per IP).',
  }),
});

export const RecommendResponse = z
  .object({
    intent: z.string().meta({ description: 'Echo of the query.' }),
    intent_id: z.string().meta({ description: 'The intent this call created; usable with /v1/intents.' }),
    count: z.number().int(),
    items: z.array(ProductCardDocument).meta({
      description:
        "Ranked Product Card Documents, one per product: the same product from several merchants is one item whose `offers` list each seller. Pass each `cta.primary.url` (and an offer's `url`) to the shopper verbatim: it carries the rec_id that attributes the order.",
    }),
    proposals: z.array(Proposal).meta({
      description:
        "One catalog proposal (provenance `catalog`) per offer, in item order: each item's own product first, then its other sellers' offers in `offers` order (each offer's `proposal_id` names its proposal).",
    }),
    proposal_count: z.number().int(),
    match_session_id: z
      .string()
      .meta({ description: 'A match session ranking those proposals; accept it with POST /v1/match/{id}/accept.' }),
    shopper_guide: z.string().meta({ description: 'Human-facing copy explaining how the picks relate to the intent.' }),
    note: z.enum(['intent_plus_trending', 'trending_suggested', 'no_results']).nullable().meta({
      description:
        '`intent_plus_trending`: intent hits topped up with trending products; `trending_suggested`: no intent hit, all items trending; `no_results`: nothing passed the filters; null: all items are intent hits.',
    }),
    match_tier: z.enum([...MATCH_TIERS, 'none']).meta({
      description:
        'The last retrieval tier that contributed intent hits (the one that filled `limit` when the tiers did); `none` when no tier found anything.',
    }),
    intent_source: z
      .string()
      .meta({ description: '`natural_language`, or `natural_language+region_param` when the region parameter was given.' }),
    resolved_keywords: z.array(z.string()),
    resolved_categories: z.array(z.string()).meta({ description: '"L1" or "L1 > L2" taxonomy paths read from the intent.' }),
    retrieval: z.object({ intent_hits: z.number().int(), trending_fill: z.number().int() }),
    generated_at: isoDateTime,
  })
  .meta({ id: 'RecommendResponse' });

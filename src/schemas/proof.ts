import { z } from 'zod';
import { isoDateTime, text } from './common';
import { NUL_ESCAPE } from '../input-guard';

/** GET /v1/proof-feed (docs/PROOF.md): the commerce and community variants. */

export const COMMUNITY_SOURCES = ['community', 'community-proof', 'reddit'] as const;
export const PROOF_SOURCES = ['commerce', ...COMMUNITY_SOURCES] as const;
export type ProofSource = (typeof PROOF_SOURCES)[number];

export const MAX_FILTER_NAMES = 10;

/** As Reddit allows it: letters, digits, underscore; 2 to 21 of them, with an optional `r/` that is dropped. */
const SUBREDDIT = String.raw`(?:/?r/)?[A-Za-z0-9_]{2,21}`;
export const SubredditName = z
  .string()
  .trim()
  .regex(new RegExp(`^${SUBREDDIT}$`), 'not a subreddit name')
  .transform((s) => s.replace(/^\/?r\//, ''));

/** Case-insensitive duplicates are dropped; the first spelling is kept for display. */
const uniqueIgnoringCase = (names: string[]) => names.filter((n, i) => names.findIndex((m) => m.toLowerCase() === n.toLowerCase()) === i);

/** Spaces and tabs around a name are dropped (the pattern and the parser agree on exactly these two). */
const PAD = '[ \\t]*';
const unpad = (s: string) => s.replace(/^[ \t]+|[ \t]+$/g, '');

/**
 * A comma-separated list of at most MAX_FILTER_NAMES pieces, each a `piece` pattern (which matches
 * blank too). The whole rule is the parameter's `pattern`, so the document says exactly what is
 * accepted: blank pieces are dropped, and a list with none left filters nothing, as if absent.
 */
const commaList = <T extends z.ZodType<string, string>>(piece: string, item: T) =>
  z
    .string()
    .max(2000)
    .regex(new RegExp(`^${piece}(?:,${piece}){0,${MAX_FILTER_NAMES - 1}}$`), `a comma-separated list of at most ${MAX_FILTER_NAMES} names`)
    .transform((s) => s.split(',').map(unpad).filter(Boolean))
    .pipe(z.array(item).max(MAX_FILTER_NAMES))
    .transform((names) => (names.length ? uniqueIgnoringCase(names) : undefined));

export const ProofFeedQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(24)
    .default(12)
    .meta({ description: 'Items to return, 1..24, default 12 (commerce: videos; community: product or topic groups).' }),
  source: z.enum(PROOF_SOURCES).default('commerce').meta({
    description:
      '`commerce` (default): outcome-backed creator videos. `community`, `community-proof` and `reddit` all select imported community evidence.',
  }),
  intent: text(500).optional().meta({
    description:
      'Shopping intent in free text. Its keywords filter by full-text search: all keywords, else any keyword; filters.match says which.',
  }),
  products: commaList(`[^,${NUL_ESCAPE}]{0,200}`, z.string().max(200)).optional().meta({
    description:
      'Comma-separated product names (up to 10, each up to 200 characters; blank ones are ignored); an item matches when a product title contains any of them.',
  }),
  subreddits: commaList(`${PAD}(?:${SUBREDDIT}${PAD})?`, SubredditName).optional().meta({
    description:
      'Community only: comma-separated allow-list of subreddits (up to 10; blank ones are ignored). Filters the evidence and bounds the automation plan; nothing is crawled.',
  }),
});
export type ProofFeedQueryT = z.infer<typeof ProofFeedQuery>;

const MatchMode = z.enum(['all_keywords', 'any_keyword']).nullable().meta({
  description:
    'How the intent filtered: every keyword, or (when that found nothing) any keyword; null without an intent or when it has no keywords.',
});

const commonFilters = {
  intent: z.string().nullable(),
  keywords: z.array(z.string()).meta({ description: 'Keywords read from the intent.' }),
  products: z.array(z.string()),
  match: MatchMode,
};

export const ProofProduct = z
  .object({
    id: z.string().meta({ description: 'Catalog product id (integer as a string).' }),
    title: z.string(),
    brand: z.string().nullable(),
    category_l1: z.string().nullable(),
    category_l2: z.string().nullable(),
    price_usd: z.number().nullable().meta({ description: 'Current price in USD; null when the product is priced in another currency.' }),
  })
  .meta({ id: 'ProofProduct' });

export const CommerceProofItem = z
  .object({
    task_id: z.string(),
    video: z.object({
      thumbnail: z.string().nullable(),
      video_url: z.string().nullable(),
      platform_video_url: z.string().nullable(),
      duration_s: z.number().int(),
      published_at: isoDateTime,
    }),
    creator: z.object({ username: z.string(), display_name: z.string(), avatar: z.string().nullable(), followers: z.number().int() }),
    product: ProofProduct,
    outcome: z.object({
      orders: z.number().int(),
      gmv_usd: z.number(),
      views: z.number().int(),
      conversion_score: z.number().meta({ description: '0..1: orders per view against a 10% benchmark.' }),
    }),
    proof_statement: z.string().meta({ description: 'One sentence generated from the outcome numbers above and nothing else.' }),
  })
  .meta({ id: 'CommerceProofItem' });

export const CommerceProofFeed = z
  .object({
    source: z.literal('commerce'),
    count: z.number().int(),
    items: z
      .array(CommerceProofItem)
      .meta({ description: 'Videos with verified outcomes (orders and GMV above zero), by conversion_score, then GMV, then task_id.' }),
    filters: z.object(commonFilters),
    generated_at: isoDateTime,
  })
  .meta({ id: 'CommerceProofFeed' });

export const STANCES = ['positive', 'negative', 'neutral'] as const;

export const EvidenceClaim = z.object({ attribute: z.string(), stance: z.enum(STANCES), text: z.string() }).meta({ id: 'EvidenceClaim' });

export const CommunityEvidence = z
  .object({
    evidence_id: z.string(),
    source: z.enum(['reddit', 'forum']),
    community: z.string().meta({ description: 'Subreddit (without r/) or forum board.' }),
    thread_url: z.string(),
    post_id: z.string(),
    author_hash: z.string().nullable().meta({ description: 'Pseudonymous author key (SHA-256); never a username.' }),
    title: z.string(),
    excerpt: z.string().meta({ description: 'At most 500 characters.' }),
    product_id: z.string().nullable().meta({ description: 'The catalog product product_name was linked to at import, if any.' }),
    product_name: z.string(),
    claims: z.array(EvidenceClaim),
    upvotes: z.number().int(),
    comment_count: z.number().int(),
    posted_at: isoDateTime,
    imported_at: isoDateTime,
    import_batch: z.string(),
  })
  .meta({ id: 'CommunityEvidence' });

const StanceTally = z.object({ claims: z.number().int(), weight: z.number() });

export const AttributeConsensus = z
  .object({
    attribute: z.string(),
    positive: StanceTally,
    negative: StanceTally,
    neutral: StanceTally,
    agreement: z
      .number()
      .nullable()
      .meta({ description: '|positive − negative| / (positive + negative) by weight; null when every claim is neutral.' }),
    leaning: z.enum(['positive', 'negative', 'split', 'neutral']),
  })
  .meta({ id: 'AttributeConsensus' });

export const Contradiction = z
  .object({ attribute: z.string(), positive_evidence_ids: z.array(z.string()), negative_evidence_ids: z.array(z.string()) })
  .meta({ id: 'Contradiction', description: 'An attribute with both positive and negative claims.' });

export const CommunityProofGroup = z
  .object({
    group_id: z.string().meta({ description: '`product:<id>` for evidence linked to a catalog product, else `topic:<product name>`.' }),
    topic: z.string().meta({ description: 'The product name as the most upvoted evidence gives it.' }),
    product: ProofProduct.nullable(),
    communities: z.array(z.string()),
    evidence_count: z.number().int(),
    consensus: z
      .object({
        score: z.number().nullable().meta({
          description: '0..1: upvote-weighted agreement of stances per attribute (see docs/PROOF.md); null when no claim takes a side.',
        }),
        sample_size: z.number().int().meta({ description: 'Evidence records with at least one positive or negative claim.' }),
        claim_count: z.number().int().meta({ description: 'Positive and negative claims counted.' }),
      })
      .meta({ id: 'Consensus' }),
    attributes: z.array(AttributeConsensus),
    contradictions: z.array(Contradiction),
    evidence: z
      .array(CommunityEvidence)
      .meta({ description: 'The 10 most upvoted records; consensus and contradictions use all of them.' }),
  })
  .meta({ id: 'CommunityProofGroup' });

export const AutomationPlan = z
  .object({
    mode: z.literal('bounded_import'),
    crawling: z.literal(false),
    recursive: z.literal(false),
    schedule: z.object({ frequency: z.literal('daily'), cron: z.string(), timezone: z.literal('UTC') }),
    sources: z.array(
      z.object({
        source: z.literal('reddit'),
        communities: z.array(z.string()),
        communities_from: z
          .enum(['request', 'default'])
          .meta({ description: 'The subreddits parameter, or the documented default allow-list.' }),
        listing: z.literal('top'),
        max_posts_per_community: z.number().int(),
        max_comments_per_post: z.number().int(),
        lookback_days: z.number().int(),
      }),
    ),
    max_records_per_run: z.number().int(),
    import_command: z.string().meta({ description: 'The command that loads the collected JSONL file.' }),
    record_format: z.string(),
    last_import: z.object({ import_batch: z.string(), imported_at: isoDateTime, records: z.number().int() }).nullable(),
  })
  .meta({
    id: 'AutomationPlan',
    description:
      'How community evidence gets here: a bounded, scheduled import of allow-listed communities. This endpoint fetches nothing from the network.',
  });

export const CommunityProofFeed = z
  .object({
    source: z.literal('community'),
    count: z.number().int(),
    items: z
      .array(CommunityProofGroup)
      .meta({ description: 'Evidence grouped per product or topic, strongest first (upvote weight, then record count).' }),
    filters: z.object({ ...commonFilters, subreddits: z.array(z.string()) }),
    automation_plan: AutomationPlan,
    generated_at: isoDateTime,
  })
  .meta({ id: 'CommunityProofFeed' });

export const ProofFeed = z.discriminatedUnion('source', [CommerceProofFeed, CommunityProofFeed]).meta({ id: 'ProofFeed' });

export type ProofProductT = z.infer<typeof ProofProduct>;
export type CommerceProofFeedT = z.infer<typeof CommerceProofFeed>;
export type CommerceProofItemT = z.infer<typeof CommerceProofItem>;
export type CommunityProofFeedT = z.infer<typeof CommunityProofFeed>;
export type CommunityProofGroupT = z.infer<typeof CommunityProofGroup>;
export type CommunityEvidenceT = z.infer<typeof CommunityEvidence>;
export type AttributeConsensusT = z.infer<typeof AttributeConsensus>;
export type ContradictionT = z.infer<typeof Contradiction>;
export type AutomationPlanT = z.infer<typeof AutomationPlan>;
export type MatchModeT = z.infer<typeof MatchMode>;

import { createHash } from 'node:crypto';
import { z } from 'zod';
import { STANCES, SubredditName } from '../schemas/proof';

/**
 * One line of a community evidence file (JSON Lines; docs/PROOF.md#jsonl-record-format). Unknown
 * members are ignored, so exports can carry more than the importer keeps.
 */

export const MAX_EXCERPT_CHARS = 500;

/** Postgres text cannot hold NUL; a line with one is rejected rather than failing the whole import. */
const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((s) => !s.includes('\u0000'), 'contains a NUL character');

/** Quotes stay short: longer excerpts are cut at a word boundary and marked with an ellipsis. */
const excerpt = text(100_000).transform((s) => {
  if (s.length <= MAX_EXCERPT_CHARS) return s;
  const cut = s.slice(0, MAX_EXCERPT_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX_EXCERPT_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
});

/** `Battery Life`, `battery-life` and `battery_life` are one attribute. */
const attribute = z
  .string()
  .trim()
  .toLowerCase()
  .transform((s) => s.replace(/[\s-]+/g, '_'))
  .pipe(z.string().regex(/^[a-z0-9_]{1,60}$/, 'must be a short slug of letters, digits and underscores'));

const REDDIT_HOST = /(^|\.)reddit\.com$|^redd\.it$/;

export const CommunityRecord = z
  .object({
    source: z.enum(['reddit', 'forum']),
    community: text(100),
    thread_url: z.url({ protocol: /^https$/ }).max(2048),
    post_id: text(100),
    author: text(100).optional(),
    title: text(300),
    excerpt,
    product_name: text(200),
    claims: z
      .array(z.object({ attribute, stance: z.enum(STANCES), text: text(280) }))
      .min(1)
      .max(20),
    upvotes: z.number().int().min(-1_000_000).max(1_000_000_000),
    comment_count: z.number().int().min(0).max(10_000_000).default(0),
    posted_at: z.iso.datetime({ offset: true }),
  })
  // Runs even when members failed above, so it checks only what parsed.
  .superRefine((r, ctx) => {
    if (r.source !== 'reddit') return;
    if (typeof r.community === 'string' && !SubredditName.safeParse(r.community).success)
      ctx.addIssue({ code: 'custom', path: ['community'], message: 'not a subreddit name' });
    if (URL.canParse(r.thread_url) && !REDDIT_HOST.test(new URL(r.thread_url).hostname))
      ctx.addIssue({ code: 'custom', path: ['thread_url'], message: 'not a reddit.com URL' });
  })
  .transform(({ author, ...r }) => ({
    ...r,
    community: r.source === 'reddit' ? SubredditName.parse(r.community) : r.community,
    author_hash: authorHash(r.source, author),
  }));
export type CommunityRecordT = z.infer<typeof CommunityRecord>;

const GONE_AUTHORS = new Set(['[deleted]', '[removed]']);

/**
 * A stable pseudonym, so one author's records can be told apart without storing who they are.
 * Handles are case-insensitive on Reddit, hence lower-cased first.
 */
function authorHash(source: string, author: string | undefined): string | null {
  if (!author || GONE_AUTHORS.has(author)) return null;
  return createHash('sha256').update(`${source}:${author.toLowerCase()}`).digest('hex');
}

/** The first problem of a line, naming the member: `claims.0.stance: Invalid option…`. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue?.path.join('.') ?? '';
  return `${path ? `${path}: ` : ''}${issue?.message ?? 'invalid record'}`;
}

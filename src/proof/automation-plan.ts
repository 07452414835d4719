import type { Db } from '../db/connect';
import type { AutomationPlanT } from '../schemas/proof';

/**
 * The import plan the community feed carries: which communities evidence may come from, how much
 * of each, and how often. It describes a bounded, scheduled import that an operator (or a job) runs
 * with the importer; the feed endpoint itself never fetches anything. docs/PROOF.md explains it.
 */

/** Communities read when the caller names none: product-review subreddits matching the catalog. */
export const DEFAULT_SUBREDDITS = ['BuyItForLife', 'headphones', 'RunningShoeGeeks', 'Coffee', 'SkincareAddiction', 'HomeImprovement'];

/** Per-community bounds of one run. Top posts only, one level of comments, nothing followed further. */
export const REDDIT_LIMITS = { max_posts_per_community: 25, max_comments_per_post: 10, lookback_days: 30 } as const;

/** The importer refuses bigger files, so an import stays bounded whatever produced the file. */
export const MAX_RECORDS_PER_FILE = 5_000;

export async function automationPlan(db: Db, subreddits: string[], now: Date): Promise<AutomationPlanT> {
  const communities = subreddits.length ? subreddits : DEFAULT_SUBREDDITS;
  const day = now.toISOString().slice(0, 10);
  return {
    mode: 'bounded_import',
    crawling: false,
    recursive: false,
    schedule: { frequency: 'daily', cron: '0 4 * * *', timezone: 'UTC' },
    sources: [
      { source: 'reddit', communities, communities_from: subreddits.length ? 'request' : 'default', listing: 'top', ...REDDIT_LIMITS },
    ],
    max_records_per_run: communities.length * REDDIT_LIMITS.max_posts_per_community * (1 + REDDIT_LIMITS.max_comments_per_post),
    import_command: `npm run import-community -- community-evidence-${day}.jsonl --batch reddit-${day}`,
    record_format: 'docs/PROOF.md#jsonl-record-format',
    last_import: await lastImport(db),
  };
}

async function lastImport(db: Db): Promise<AutomationPlanT['last_import']> {
  const latest = await db
    .selectFrom('community_evidence')
    .select(['import_batch', 'imported_at'])
    .orderBy('imported_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!latest) return null;
  const { records } = await db
    .selectFrom('community_evidence')
    .select((eb) => eb.fn.countAll<string>().as('records'))
    .where('import_batch', '=', latest.import_batch)
    .executeTakeFirstOrThrow();
  return { import_batch: latest.import_batch, imported_at: latest.imported_at.toISOString(), records: Number(records) };
}

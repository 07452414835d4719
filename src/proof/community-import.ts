import { sql, type Kysely } from 'kysely';
import type { Db } from '../db/connect';
import type { Database } from '../db/schema';
import type { CommunityEvidenceTable } from '../db/schema-proof';
import { FeedFileError, readFeed } from '../catalog/feed-format';
import { newId } from '../ids';
import { MAX_RECORDS_PER_FILE } from './automation-plan';
import { CommunityRecord, describeIssue, type CommunityRecordT } from './community-record';

/**
 * Loads a community evidence file (JSON Lines, one record a line; docs/PROOF.md). Bad lines are
 * reported by line number and skipped; the rest is written in ONE transaction, so a file that fails
 * as a whole (unreadable, empty, over MAX_RECORDS_PER_FILE) leaves the evidence exactly as it was.
 * Records are keyed by (source, post_id): importing the same file again changes nothing, and a
 * record whose content changed (new upvotes, an edited excerpt) is updated in place.
 */

/**
 * pg_trgm similarity a catalog title must reach for product_name to be linked to it. Catalog titles
 * are near-duplicates of each other (brand + features + type + colour), so links must be nearly
 * exact: at 0.8 a name missing only the colour suffix still links, while the same model under
 * another brand (≈0.76) or a sibling model of the same brand (≈0.67) does not.
 */
export const LINK_SIMILARITY = 0.8;

const WRITE_BATCH = 500;

export const BatchName = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,99}$/;

export interface ImportReport {
  batch: string;
  imported: number;
  updated: number;
  unchanged: number;
  /** Valid records whose product_name was linked to a catalog product. */
  linked: number;
  skipped: Array<{ line: number; reason: string }>;
}

/** The columns an import may change; an existing record is rewritten only when one of them differs. */
const CONTENT_COLUMNS = [
  'community',
  'thread_url',
  'author_hash',
  'title',
  'excerpt',
  'product_id',
  'product_name',
  'claims',
  'upvotes',
  'comment_count',
  'posted_at',
] as const satisfies readonly (keyof CommunityEvidenceTable)[];

export async function importCommunityEvidence(db: Db, filePath: string, batch: string): Promise<ImportReport> {
  if (!BatchName.test(batch)) throw new Error(`batch name ${JSON.stringify(batch)}: use up to 100 letters, digits and . _ : @ -`);
  // Only JSON Lines: the feed reader would take any other name for CSV and misread its first line.
  if (!/\.(jsonl|ndjson)$/i.test(filePath))
    throw new FeedFileError('community evidence files are JSON Lines: name the file .jsonl or .ndjson');
  const report: ImportReport = { batch, imported: 0, updated: 0, unchanged: 0, linked: 0, skipped: [] };
  await db.transaction().execute(async (trx) => {
    // `%` is what the trigram index serves; its threshold is this setting, for this transaction only.
    await sql`select set_config('pg_trgm.similarity_threshold', ${String(LINK_SIMILARITY)}, true)`.execute(trx);
    const link = productLinker(trx);
    const firstLineOf = new Map<string, number>();
    let records = 0;
    let pending: CommunityRecordT[] = [];
    for await (const raw of readFeed(filePath)) {
      if (++records > MAX_RECORDS_PER_FILE)
        throw new FeedFileError(`more than ${MAX_RECORDS_PER_FILE} records (line ${raw.line}): split the file; imports are bounded`);
      if ('error' in raw) {
        report.skipped.push({ line: raw.line, reason: raw.error });
        continue;
      }
      const parsed = CommunityRecord.safeParse(raw.values);
      if (!parsed.success) {
        report.skipped.push({ line: raw.line, reason: describeIssue(parsed.error) });
        continue;
      }
      const key = `${parsed.data.source}/${parsed.data.post_id}`;
      const seen = firstLineOf.get(key);
      if (seen !== undefined) {
        report.skipped.push({ line: raw.line, reason: `duplicate post ${key} (first on line ${seen})` });
        continue;
      }
      firstLineOf.set(key, raw.line);
      pending.push(parsed.data);
      if (pending.length >= WRITE_BATCH) {
        await write(trx, pending, batch, await link(pending), report);
        pending = [];
      }
    }
    if (pending.length) await write(trx, pending, batch, await link(pending), report);
  });
  return report;
}

/** Resolves product names to catalog products, each distinct name once per import. */
function productLinker(trx: Kysely<Database>) {
  const known = new Map<string, number | null>();
  return async (records: CommunityRecordT[]): Promise<Map<string, number | null>> => {
    const names = [...new Set(records.map((r) => r.product_name.toLowerCase()))].filter((n) => !known.has(n));
    if (names.length) {
      const { rows } = await sql<{ name: string; product_id: number | null }>`
        select n.name, best.product_id
        from unnest(${names}::text[]) as n(name)
        left join lateral (
          select p.product_id from products p
          where p.title % n.name and similarity(p.title, n.name) >= ${LINK_SIMILARITY}
          -- Colour variants tie on similarity: the best seller is the one people most likely mean.
          order by similarity(p.title, n.name) desc, p.gmv_cents desc, p.product_id
          limit 1
        ) best on true`.execute(trx);
      for (const r of rows) known.set(r.name, r.product_id);
    }
    return known;
  };
}

async function write(
  trx: Kysely<Database>,
  records: CommunityRecordT[],
  batch: string,
  links: Map<string, number | null>,
  report: ImportReport,
): Promise<void> {
  const rows = records.map((r) => ({
    evidence_id: newId('cev'),
    source: r.source,
    community: r.community,
    thread_url: r.thread_url,
    post_id: r.post_id,
    author_hash: r.author_hash,
    title: r.title,
    excerpt: r.excerpt,
    product_id: links.get(r.product_name.toLowerCase()) ?? null,
    product_name: r.product_name,
    claims: JSON.stringify(r.claims),
    upvotes: r.upvotes,
    comment_count: r.comment_count,
    posted_at: r.posted_at,
    import_batch: batch,
  }));
  const changed = (table: string) => sql.join(CONTENT_COLUMNS.map((c) => sql.ref(`${table}.${c}`)));
  const written = await trx
    .insertInto('community_evidence')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['source', 'post_id'])
        .doUpdateSet((eb) => ({
          ...Object.fromEntries(CONTENT_COLUMNS.map((c) => [c, eb.ref(`excluded.${c}`)])),
          imported_at: sql`now()`,
          import_batch: eb.ref('excluded.import_batch'),
        }))
        .where(sql<boolean>`(${changed('community_evidence')}) is distinct from (${changed('excluded')})`),
    )
    // xmax is 0 only on a freshly inserted row version; an unchanged record returns no row at all.
    .returning(sql<boolean>`xmax = 0`.as('inserted'))
    .execute();
  const inserted = written.filter((w) => w.inserted).length;
  report.imported += inserted;
  report.updated += written.length - inserted;
  report.unchanged += records.length - written.length;
  report.linked += rows.filter((r) => r.product_id !== null).length;
}

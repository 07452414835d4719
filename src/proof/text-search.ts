import { sql, type RawBuilder } from 'kysely';
import { keywordTags, normalizeQuery } from '../matching/intent-text';

/** The intent and products filters of both proof feed variants. */

export type MatchMode = 'all_keywords' | 'any_keyword';

/** The intent's keywords, read the way intents are everywhere else; empty when only stopwords remain. */
export function intentKeywords(intent: string | undefined): string[] {
  return intent ? keywordTags(normalizeQuery(intent)) : [];
}

/**
 * to_tsquery over the keywords with each one quoted as a single operand, so nothing in the shopper's
 * text can act as tsquery syntax. Quoting raw words rather than pre-stemmed lexemes matters: the
 * english config stems operands itself, and stemming a stem again misses ('nois' becomes 'noi').
 */
export function keywordQuery(keywords: string[], mode: MatchMode): RawBuilder<unknown> {
  const operands = keywords.map((k) => `'${k.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`);
  return sql`to_tsquery('english', ${operands.join(mode === 'all_keywords' ? ' & ' : ' | ')})`;
}

/**
 * Runs a search with every keyword, and with any keyword when that finds nothing. `run` gets the
 * tsquery (null without keywords: unfiltered) and the result says which one produced the rows.
 */
export async function searchWithFallback<T>(
  keywords: string[],
  run: (query: RawBuilder<unknown> | null) => Promise<T[]>,
): Promise<{ rows: T[]; match: MatchMode | null; query: RawBuilder<unknown> | null }> {
  if (!keywords.length) return { rows: await run(null), match: null, query: null };
  const all = keywordQuery(keywords, 'all_keywords');
  const rows = await run(all);
  // With one keyword "any" is the same query again.
  if (rows.length || keywords.length === 1) return { rows, match: 'all_keywords', query: all };
  const any = keywordQuery(keywords, 'any_keyword');
  return { rows: await run(any), match: 'any_keyword', query: any };
}

const containsPattern = (name: string) => `%${name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Any of the columns contains any of the names, case-insensitively (the trigram index serves ILIKE). */
export function containsAny(columns: string[], names: string[]): RawBuilder<boolean> {
  const tests = columns.flatMap((c) => names.map((n) => sql`${sql.ref(c)} ilike ${containsPattern(n)}`));
  return sql<boolean>`(${sql.join(tests, sql` or `)})`;
}

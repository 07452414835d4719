import { TAXONOMY } from '../catalog/taxonomy';

/**
 * Words that name a category (L1/L2 names and product nouns of the taxonomy). An intent "states"
 * category tags through those of its tags that are such words; a merchant states them explicitly.
 */
const CATEGORY_WORDS = new Set(
  TAXONOMY.flatMap((l1) => [l1.name, ...l1.children.flatMap((l2) => [l2.name, ...l2.nouns])])
    .flatMap((name) => name.toLowerCase().split(/[^a-z0-9]+/))
    .filter((w) => w.length > 2 && w !== 'and'),
);

export function intentCategoryTags(intentTags: readonly string[]): string[] {
  return intentTags.map((t) => t.toLowerCase()).filter((t) => CATEGORY_WORDS.has(t));
}

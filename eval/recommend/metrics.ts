/**
 * The evaluation's measures, over the grades of a ranked answer (0 = not acceptable, 1 = acceptable,
 * 2 = exactly what was asked), in rank order.
 *
 * - precision@k: the share of the first k that are acceptable (for sentences that many products fit);
 * - hit@k: 1 when an acceptable product is among the first k (for sentences that one or a few fit);
 * - nDCG@k: graded gain (2^grade − 1) discounted by log2(rank + 1), over the best order of every
 *   graded product there is (the ideal), so an answer that misses the exact products scores less than
 *   one that finds them, and finding them lower scores less than finding them first.
 */

export type Grade = 0 | 1 | 2;

export function precisionAt(ranked: readonly Grade[], k: number): number {
  return ranked.slice(0, k).filter((g) => g > 0).length / k;
}

export function hitAt(ranked: readonly Grade[], k: number): number {
  return ranked.slice(0, k).some((g) => g > 0) ? 1 : 0;
}

function dcg(grades: readonly number[], k: number): number {
  return grades.slice(0, k).reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
}

/** `available`: the grades of every product that is acceptable for the sentence (any order). */
export function ndcgAt(ranked: readonly Grade[], available: readonly Grade[], k: number): number {
  const ideal = dcg(
    [...available].sort((a, b) => b - a),
    k,
  );
  return ideal === 0 ? 0 : dcg(ranked, k) / ideal;
}

export const mean = (xs: readonly number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

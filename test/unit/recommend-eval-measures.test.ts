import { describe, expect, it } from 'vitest';
import {
  figuresOf,
  regressions,
  type CaseResult,
  type EvalReport,
  type RecordedFigures,
  type SetFigures,
} from '../../eval/recommend/figures';
import { hitAt, ndcgAt, precisionAt } from '../../eval/recommend/metrics';

/** The recommendation evaluation's measures and its check against the recorded figures (eval/recommend/). */

describe('measures over a graded answer', () => {
  it('precision@3 counts acceptable cards among the first three; hit@3 asks for one', () => {
    expect(precisionAt([2, 0, 1, 2], 3)).toBeCloseTo(2 / 3, 12);
    expect(precisionAt([0], 3)).toBe(0);
    expect(hitAt([0, 0, 1], 3)).toBe(1);
    expect(hitAt([0, 0, 0, 2], 3)).toBe(0);
  });

  it('nDCG@10 rewards exact products, found early, against the best order of every graded product', () => {
    expect(ndcgAt([2, 1], [1, 2], 10)).toBe(1);
    // The exact product second instead of first: (2²−1)/log2(3) over (2²−1)/log2(2).
    expect(ndcgAt([0, 2], [2], 10)).toBeCloseTo(1 / Math.log2(3), 12);
    // An acceptable product instead of the exact one.
    expect(ndcgAt([1], [2, 1], 10)).toBeCloseTo(1 / (3 + 1 / Math.log2(3)), 12);
    expect(ndcgAt([0, 0], [2], 10)).toBe(0);
    // Only the first ten count.
    expect(ndcgAt([...Array(10).fill(0), 2], [2], 10)).toBe(0);
  });
});

const result = (over: Partial<CaseResult>): CaseResult => ({
  set: 'real',
  ranker: 'hybrid',
  query: 'q',
  kind: 'plain',
  measure: 'precision',
  score: 1,
  ndcg: 1,
  intentHits: 3,
  tier: 'strict',
  top: [],
  wanted: [],
  ...over,
});

describe('figures of a set', () => {
  it('precision@3, hit@3 and nothing-fits each over their own sentences, nDCG@10 over every sentence something fits', () => {
    const f = figuresOf([
      result({ measure: 'precision', score: 2 / 3, ndcg: 0.5 }),
      result({ measure: 'precision', score: 1 / 3, ndcg: 0.25 }),
      result({ measure: 'hit', score: 1, ndcg: 1 }),
      result({ measure: 'nothing', score: 0, ndcg: null }),
      result({ measure: 'nothing', score: 1, ndcg: null }),
    ]);
    expect(f).toEqual({
      precision_at_3: 0.5,
      hit_at_3: 1,
      ndcg_at_10: 0.5833333333333334,
      nothing_fits: 0.5,
      counts: { precision: 2, hit: 1, ndcg: 3, nothing: 2 },
    });
    expect(figuresOf([result({ measure: 'hit', score: 0, ndcg: 0 })]).precision_at_3).toBeNull();
  });
});

describe('the check against the recorded figures', () => {
  const set = (over: Partial<SetFigures> = {}): SetFigures => ({
    precision_at_3: 0.5,
    hit_at_3: 0.7,
    ndcg_at_10: 0.6,
    nothing_fits: 0.8,
    counts: { precision: 10, hit: 10, ndcg: 20, nothing: 5 },
    ...over,
  });
  const report = (seeded: SetFigures, real: SetFigures): EvalReport => ({
    rankers: ['hybrid'],
    figures: { hybrid: { seeded, real } },
    results: [],
    seconds: {},
  });
  const recorded: RecordedFigures = {
    shipped_ranker: 'hybrid',
    recorded_at: '2026-11-28',
    rankers: { hybrid: { seeded: set({ hit_at_3: null }), real: set() }, fulltext: { seeded: set(), real: set({ ndcg_at_10: 0.99 }) } },
  };

  it('passes equal or better figures, float noise included, and reads only the shipped ranker', () => {
    expect(regressions(report(set({ hit_at_3: null }), set({ precision_at_3: 0.5 - 1e-12, ndcg_at_10: 0.7 })), recorded)).toEqual([]);
  });

  it('names every figure below the recorded one', () => {
    expect(regressions(report(set({ nothing_fits: 0.6 }), set({ precision_at_3: 0.49, hit_at_3: null })), recorded)).toEqual([
      'hybrid seeded nothing_fits:  0.600 < recorded  0.800',
      'hybrid real precision_at_3:  0.490 < recorded  0.500',
      'hybrid real hit_at_3:    —   < recorded  0.700',
    ]);
  });

  it('refuses a run without the shipped ranker', () => {
    expect(regressions({ rankers: [], figures: {}, results: [], seconds: {} }, recorded)).toEqual([
      'the evaluation did not run the shipped ranker hybrid',
    ]);
  });
});

/**
 * Tunes the hybrid ranker's fusion settings (FUSION in src/recommend/retrieval.ts) on the evaluation
 * set (docs/RECOMMEND.md, "Evaluation"): every setting of a small grid runs every sentence of both
 * sets on the same databases, and the settings are ranked by the lower of the two sets' mean score
 * per sentence (precision@3 where many products fit, a right product in the top 3 where few do, and
 * nothing-fits sentences answered without a match), so that neither set is bought with the other.
 *
 *   npx tsx eval/tune-fusion.ts [attributes]
 */
import { FUSION, type FusionSettings } from '../src/recommend/retrieval';
import type { SetFigures } from './recommend/figures';
import { runRecommendEvaluation, type Tried } from './recommend/harness';

// The grid last run (its figures are in docs/RECOMMEND.md): the match threshold, the words' weight and
// the rank constant first; then the attributes' weight at the best of those.
const grid: FusionSettings[] =
  process.argv[2] === 'attributes'
    ? [0, 0.03, 0.1].map((attributeWeight) => ({ ...FUSION, attributeWeight }))
    : [0.35, 0.4, 0.45, 0.5].flatMap((semanticMatch) =>
        [0.5, 1, 1.5].flatMap((textWeight) => [10, 40].map((rrfK) => ({ ...FUSION, semanticMatch, textWeight, rrfK }))),
      );

/** A set's mean score per sentence: each sentence counts once, on its own measure (P@3, hit@3 or nothing fits). */
const main = (f: SetFigures) => {
  const parts: Array<[number | null, number]> = [
    [f.precision_at_3, f.counts.precision],
    [f.hit_at_3, f.counts.hit],
    [f.nothing_fits, f.counts.nothing],
  ];
  const n = parts.reduce((a, [v, c]) => a + (v === null ? 0 : c), 0);
  return parts.reduce((a, [v, c]) => a + (v === null ? 0 : v * c), 0) / n;
};
const score = (t: Tried) => Math.min(main(t.seeded), main(t.real));
const line = (t: Tried) =>
  `match ${t.fusion.semanticMatch} text ${t.fusion.textWeight} k ${t.fusion.rrfK}: ` +
  `seeded p@3 ${t.seeded.precision_at_3?.toFixed(3)} nothing ${t.seeded.nothing_fits?.toFixed(2)} | ` +
  `real p@3 ${t.real.precision_at_3?.toFixed(3)} hit@3 ${t.real.hit_at_3?.toFixed(3)} nothing ${t.real.nothing_fits?.toFixed(2)} ndcg ${t.real.ndcg_at_10?.toFixed(3)} → ${score(t).toFixed(3)}`;

const report = await runRecommendEvaluation({ fusions: grid, log: console.log, onTried: (t) => console.log(line(t)) });
const ranked = [...report.tuning!].sort((a, b) => score(b as Tried) - score(a as Tried)) as Tried[];
console.log('\nbest first:');
for (const t of ranked.slice(0, 5)) console.log(`  ${line(t)}`);

/**
 * Tunes the hybrid ranker's fusion settings (FUSION in src/recommend/retrieval.ts) on the evaluation
 * set (docs/RECOMMEND.md, "Evaluation"): every setting of a small grid runs every sentence of both
 * sets on the same databases, and the settings are ranked by the lower of the two sets' main figures
 * (precision@3 where many products fit, a right product in the top 3 where few do, and nothing-fits
 * sentences answered without a match), so that neither set is bought with the other.
 *
 *   npx tsx eval/tune-fusion.ts
 */
import { FUSION, type FusionSettings } from '../src/recommend/retrieval';
import type { SetFigures } from './recommend/figures';
import { runRecommendEvaluation, type Tried } from './recommend/harness';

const grid: FusionSettings[] = [];
for (const semanticMatch of [0.35, 0.4, 0.45, 0.5])
  for (const textWeight of [0.5, 1, 1.5]) for (const rrfK of [10, 40]) grid.push({ ...FUSION, semanticMatch, textWeight, rrfK });

/** The mean of a set's main figures, each over its own sentences. */
const main = (f: SetFigures) => {
  const parts = [f.precision_at_3, f.hit_at_3, f.nothing_fits].filter((x): x is number => x !== null);
  return parts.reduce((a, b) => a + b, 0) / parts.length;
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

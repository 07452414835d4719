import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { REAL_CASES, SEEDED_CASES } from '../eval/recommend/cases';
import { SHIPPED_RANKER, formatMisses, formatTable, regressions, type RecordedFigures } from '../eval/recommend/figures';
import { runRecommendEvaluation } from '../eval/recommend/harness';

/**
 * The recommendation evaluation (docs/RECOMMEND.md, "Evaluation"), as `npm run eval:recommend --
 * --ranker hybrid --check eval/recommend/figures.json` runs it: the graded sentences over the seeded
 * catalog and the real stores, through recommend() with the shipped ranker, on scratch databases of
 * its own (the run's shared database is only where they are created). No figure of the shipped
 * ranker may fall below the recorded one; an improvement is recorded by re-running
 * `npm run eval:recommend -- --json eval/recommend/figures.json`.
 */

const FIGURES = path.join(import.meta.dirname, '..', 'eval', 'recommend', 'figures.json');

describe('recommendation evaluation', () => {
  it(`the shipped ranker (${SHIPPED_RANKER}) answers the graded sentences no worse than the recorded figures`, async () => {
    const recorded = JSON.parse(await readFile(FIGURES, 'utf8')) as RecordedFigures;
    expect(recorded.shipped_ranker).toBe(SHIPPED_RANKER);
    const adminUrl = Object.assign(new URL(inject('databaseUrl')), { pathname: '/postgres' }).toString();

    const report = await runRecommendEvaluation({ rankers: [SHIPPED_RANKER], adminUrl });

    console.log(`${formatTable(report)}\n\n${formatMisses(report, SHIPPED_RANKER)}`);
    // Every sentence was answered and graded.
    expect(report.results.filter((r) => r.set === 'real')).toHaveLength(REAL_CASES.length);
    expect(report.results.filter((r) => r.set === 'seeded')).toHaveLength(SEEDED_CASES.length);
    expect(regressions(report, recorded)).toEqual([]);
  }, 600_000);
});

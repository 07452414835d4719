import type { Ranker } from '../../src/recommend/retrieval';
import { mean, type Grade } from './metrics';

/** The evaluation's figures and report: what the harness measured, what was recorded, how both print (pure, no database). */

/** The ranker `GET /v1/recommend` uses when the caller names none: the one the figures are checked for. */
export const SHIPPED_RANKER: Ranker = 'hybrid';

export type SetName = 'seeded' | 'real';
export const SETS: readonly SetName[] = ['seeded', 'real'];

export interface SetFigures {
  /** Mean precision@3 over the sentences that three or more products fit (null: none in the set). */
  precision_at_3: number | null;
  /** Share of sentences that one or two products fit with one of them in the first three. */
  hit_at_3: number | null;
  /** Mean nDCG@10 over every sentence something fits. */
  ndcg_at_10: number | null;
  /** Share of the sentences nothing fits answered without a match (only suggestions, labelled so, or nothing). */
  nothing_fits: number | null;
  counts: { precision: number; hit: number; ndcg: number; nothing: number };
}

export type Figures = Record<Ranker, Record<SetName, SetFigures>>;

export interface CaseResult {
  set: SetName;
  ranker: Ranker;
  query: string;
  kind: string;
  /** Which measure grades it: precision@3 (many fit), hit@3 (one or two fit), or nothing fits. */
  measure: 'precision' | 'hit' | 'nothing';
  score: number;
  ndcg: number | null;
  intentHits: number;
  tier: string;
  /** The first cards: gateway id, merchant/external id, title, grade. */
  top: Array<{ key: string; title: string; grade: Grade }>;
  /** What the sentence wanted most (real set: the grade-2 products, else the grade-1 ones; seeded: the categories). */
  wanted: string[];
}

export interface EvalReport {
  rankers: Ranker[];
  figures: Partial<Figures>;
  results: CaseResult[];
  /** Seconds per phase, for the report (never asserted). */
  seconds: Record<string, number>;
  /** With EvalOptions.fusions: the hybrid ranker's figures per setting tried. */
  tuning?: Array<{ fusion: unknown; seeded: SetFigures; real: SetFigures }>;
}

export function figuresOf(results: readonly CaseResult[]): SetFigures {
  const of = (m: CaseResult['measure']) => results.filter((r) => r.measure === m).map((r) => r.score);
  const ndcgs = results.flatMap((r) => (r.ndcg === null ? [] : [r.ndcg]));
  return {
    precision_at_3: mean(of('precision')),
    hit_at_3: mean(of('hit')),
    ndcg_at_10: mean(ndcgs),
    nothing_fits: mean(of('nothing')),
    counts: { precision: of('precision').length, hit: of('hit').length, ndcg: ndcgs.length, nothing: of('nothing').length },
  };
}

// -------------------------------------------------------------------------------------------------
// Recorded figures: what `--check` and the test hold the shipped ranker to.

export interface RecordedFigures {
  shipped_ranker: Ranker;
  recorded_at: string;
  rankers: Partial<Figures>;
}

/** Below this, a difference is float noise, not a change of answer (one sentence moves a mean by ≥ 1/300). */
export const EPSILON = 1e-9;
const MEASURES = ['precision_at_3', 'hit_at_3', 'ndcg_at_10', 'nothing_fits'] as const;

/** Each figure of the shipped ranker that fell below the recorded one, as a sentence. */
export function regressions(report: EvalReport, recorded: RecordedFigures): string[] {
  const now = report.figures[recorded.shipped_ranker];
  const then = recorded.rankers[recorded.shipped_ranker];
  if (!now) return [`the evaluation did not run the shipped ranker ${recorded.shipped_ranker}`];
  if (!then) return [`the recorded figures have none for the shipped ranker ${recorded.shipped_ranker}`];
  const out: string[] = [];
  for (const set of SETS)
    for (const m of MEASURES) {
      const a = now[set][m];
      const b = then[set]?.[m];
      if (b === null || b === undefined) continue;
      if (a === null || a < b - EPSILON) out.push(`${recorded.shipped_ranker} ${set} ${m}: ${fmt(a)} < recorded ${fmt(b)}`);
    }
  return out;
}

export function recordedFrom(report: EvalReport, at = new Date()): RecordedFigures {
  return { shipped_ranker: SHIPPED_RANKER, recorded_at: at.toISOString().slice(0, 10), rankers: report.figures };
}

// -------------------------------------------------------------------------------------------------
// The printed report.

const fmt = (x: number | null) => (x === null ? '   —  ' : x.toFixed(3).padStart(6));

export function formatTable(report: EvalReport): string {
  const lines = [
    `${'set'.padEnd(7)} ${'ranker'.padEnd(9)} ${'P@3'.padStart(6)} ${'hit@3'.padStart(6)} ${'nDCG@10'.padStart(7)} ${'none-ok'.padStart(7)}   sentences (P@3 / hit@3 / nDCG / nothing fits)`,
  ];
  for (const set of SETS)
    for (const ranker of report.rankers) {
      const f = report.figures[ranker]![set];
      lines.push(
        `${set.padEnd(7)} ${ranker.padEnd(9)} ${fmt(f.precision_at_3)} ${fmt(f.hit_at_3)} ${fmt(f.ndcg_at_10).padStart(7)} ${fmt(f.nothing_fits).padStart(7)}   ${f.counts.precision} / ${f.counts.hit} / ${f.counts.ndcg} / ${f.counts.nothing}`,
      );
    }
  return lines.join('\n');
}

/** The sentences a ranker did not answer fully: below 1 on its measure. */
export function formatMisses(report: EvalReport, ranker: Ranker): string {
  const misses = report.results.filter((r) => r.ranker === ranker && r.score < 1);
  const lines = [`misses of ${ranker} (${misses.length}):`];
  for (const set of SETS) {
    for (const r of misses.filter((m) => m.set === set)) {
      const got = r.top.map((t) => `${t.grade ? `[${t.grade}] ` : ''}${t.title} (${t.key})`).join('; ') || 'nothing';
      lines.push(
        `  ${set} ${r.kind.padEnd(9)} ${r.measure.padEnd(9)} ${r.score.toFixed(2)} "${r.query}" → tier ${r.tier}, ${r.intentHits} hit(s): ${got}` +
          (r.measure === 'nothing'
            ? ''
            : `\n${' '.repeat(24)}wanted: ${r.wanted.slice(0, 4).join(', ')}${r.wanted.length > 4 ? ', …' : ''}`),
      );
    }
  }
  return lines.join('\n');
}

/** Per kind of sentence (synonym, need, typo, …): how many, the mean of their own measure, their mean nDCG@10. */
export function formatKinds(report: EvalReport, ranker: Ranker): string {
  const lines = [`${ranker} by kind of sentence: sentences, mean score on its measure (P@3, hit@3 or nothing-fits), mean nDCG@10`];
  for (const set of SETS) {
    const rs = report.results.filter((r) => r.ranker === ranker && r.set === set);
    const kinds = [...new Set(rs.map((r) => r.kind))];
    for (const kind of kinds) {
      const of = rs.filter((r) => r.kind === kind);
      const ndcg = mean(of.flatMap((r) => (r.ndcg === null ? [] : [r.ndcg])));
      lines.push(`  ${set.padEnd(7)} ${kind.padEnd(9)} ${String(of.length).padStart(3)} ${fmt(mean(of.map((r) => r.score)))} ${fmt(ndcg)}`);
    }
  }
  return lines.join('\n');
}

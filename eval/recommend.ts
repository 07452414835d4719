/**
 * The recommendation evaluation (docs/RECOMMEND.md, "Evaluation"): graded shopper sentences over the
 * seeded catalog and over real stores' catalogs, through recommend() with every ranker, on scratch
 * databases of its own. Prints precision@3, hit@3, nDCG@10 and the share of nothing-fits sentences
 * answered without a match, per set and ranker, then the shipped ranker's misses.
 *
 *   npm run eval:recommend [-- --ranker hybrid] [--json out.json] [--check eval/recommend/figures.json] [--quiet]
 *
 * --json FILE   write the figures (what --check reads; eval/recommend/figures.json is the recorded set)
 * --results FILE  write every sentence's result (its measure, score, nDCG, first cards) per ranker, to compare runs
 * --check FILE  exit 1 when a figure of the shipped ranker is below the one recorded in FILE
 * --ranker R    run only ranker R (repeatable; default all of fulltext, semantic, hybrid)
 * --quiet       no list of misses
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { RANKERS, type Ranker } from '../src/recommend/retrieval';
import {
  SHIPPED_RANKER,
  formatKinds,
  formatMisses,
  formatTable,
  recordedFrom,
  regressions,
  type RecordedFigures,
} from './recommend/figures';
import { runRecommendEvaluation } from './recommend/harness';

const USAGE =
  'usage: npm run eval:recommend -- [--ranker fulltext|semantic|hybrid]... [--json FILE] [--results FILE] [--check FILE] [--quiet]';

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({
      options: {
        ranker: { type: 'string', multiple: true },
        json: { type: 'string' },
        results: { type: 'string' },
        check: { type: 'string' },
        quiet: { type: 'boolean' },
      },
    });
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const rankers = (args.values.ranker ?? [...RANKERS]) as Ranker[];
  const bad = rankers.find((r) => !(RANKERS as readonly string[]).includes(r));
  if (bad) {
    console.error(`unknown ranker ${bad}\n${USAGE}`);
    return 2;
  }
  const started = Date.now();
  const report = await runRecommendEvaluation({ rankers, log: (line) => console.error(line) });
  const seconds = (Date.now() - started) / 1000;

  console.log(formatTable(report));
  // The shipped ranker's figures by kind and misses, or the first ranker's when the shipped one did not run.
  const missesOf = report.rankers.includes(SHIPPED_RANKER) ? SHIPPED_RANKER : report.rankers[0]!;
  console.log(`\n${formatKinds(report, missesOf)}`);
  if (!args.values.quiet) console.log(`\n${formatMisses(report, missesOf)}`);
  console.log(
    `\n${Object.entries(report.seconds)
      .map(([phase, s]) => `${phase} ${s.toFixed(1)} s`)
      .join(', ')}; ${seconds.toFixed(1)} s in all`,
  );

  if (args.values.json) {
    await writeFile(args.values.json, `${JSON.stringify(recordedFrom(report), null, 2)}\n`);
    console.log(`figures written to ${args.values.json}`);
  }
  if (args.values.results) {
    await writeFile(args.values.results, `${JSON.stringify(report.results, null, 1)}\n`);
    console.log(`results written to ${args.values.results}`);
  }
  if (args.values.check) {
    const recorded = JSON.parse(await readFile(args.values.check, 'utf8')) as RecordedFigures;
    const worse = regressions(report, recorded);
    if (worse.length) {
      console.log(`\nbelow the figures recorded in ${args.values.check}:\n  ${worse.join('\n  ')}`);
      return 1;
    }
    console.log(`\n${recorded.shipped_ranker}: no figure below those recorded in ${args.values.check} (${recorded.recorded_at})`);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`eval:recommend failed: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);

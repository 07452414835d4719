/**
 * Summarises the V8 CPU profiles of a benchmark run (`--cpu-prof`: one file per thread) as the top
 * frames by self time and the time per package / source directory. With --windows (bench:load's
 * --windows-file) only samples inside the timed windows count, so start-up, warm-up and shutdown do
 * not; without, the workflow bundling at a worker's start (webpack and the bundler) is skipped.
 *
 *   BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench:load -- --duration 10 --windows-file /tmp/prof/w.json
 *   npx tsx bench/cpuprofile-top.ts /tmp/prof [--windows /tmp/prof/w.json] [--top 20]
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  startTime: number;
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '20' }, windows: { type: 'string' } },
});
const windows = values.windows
  ? (JSON.parse(readFileSync(values.windows, 'utf8')) as Array<{ fromUs: number; untilUs: number }>)
  : undefined;
const inWindow = (us: number) => !windows || windows.some((w) => us >= w.fromUs && us <= w.untilUs);
const dir = positionals[0] ?? '.';
const TOP = Number(values.top);

/** Where a frame's code lives: an npm package, a directory of the project, or V8/Node itself. */
function area(url: string): string {
  if (!url) return '(native / V8)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url.split('/')[0]!.replace(/^node:internal.*/, 'node:internal');
  const m = url.match(/\/(src|api|activities|workflows|worker|bench)\/(.*)$/);
  if (m) return `${m[1]}/${m[2]!.split('/')[0]}`;
  // The workflow bundle is evaluated from a generated script in the workflow threads.
  return url.includes('workflow') ? 'workflow bundle' : path.basename(url);
}

for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .sort()) {
  const p = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const bundling = new Map<number, boolean>();
  const isBundling = (id: number): boolean => {
    const known = bundling.get(id);
    if (known !== undefined) return known;
    const n = byId.get(id)!;
    const here = /webpack|bundler|swc|memfs/.test(n.callFrame.url);
    const up = parent.get(id);
    const r = here || (up !== undefined && isBundling(up));
    bundling.set(id, r);
    return r;
  };
  const self = new Map<string, number>();
  const areas = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let skipped = 0;
  let outside = 0;
  let at = p.startTime;
  p.samples.forEach((id, i) => {
    const us = p.timeDeltas[i] ?? 0;
    at += us;
    if (!inWindow(at)) return void (outside += us);
    const n = byId.get(id)!;
    const name = n.callFrame.functionName || '(anonymous)';
    if (name === '(idle)') return void (idle += us);
    if (!windows && isBundling(id)) return void (skipped += us);
    total += us;
    const where = n.callFrame.url ? `${area(n.callFrame.url)}:${n.callFrame.lineNumber + 1}` : '';
    const key = `${name} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + us);
    const a = name === '(garbage collector)' ? '(garbage collector)' : area(n.callFrame.url);
    areas.set(a, (areas.get(a) ?? 0) + us);
  });
  const s = (us: number) => `${(us / 1e6).toFixed(2)} s`;
  const share = (us: number) => `${((us / Math.max(1, total)) * 100).toFixed(1)} %`;
  const left = windows ? `outside the timed windows ${s(outside)}` : `start-up bundling skipped ${s(skipped)}`;
  console.log(`\n## ${file}: busy ${s(total)} (idle ${s(idle)}; ${left})\n`);
  if (total < 0.05e6) continue;
  console.log('| area | self time | share |\n|---|---|---|');
  for (const [a, us] of [...areas].sort((x, y) => y[1] - x[1]).slice(0, 12)) console.log(`| ${a} | ${s(us)} | ${share(us)} |`);
  console.log('\n| top frames by self time | self time | share |\n|---|---|---|');
  for (const [k, us] of [...self].sort((x, y) => y[1] - x[1]).slice(0, TOP)) console.log(`| \`${k}\` | ${s(us)} | ${share(us)} |`);
}

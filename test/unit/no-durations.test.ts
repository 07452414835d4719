import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT, ts } from './source-tree';

/**
 * No test asserts how fast something was: CI shares its two cores with other work, so a bound on
 * elapsed wall-clock time fails on a busy machine with nothing wrong (a full-scale seed took 39 s
 * against a 20 s bound). Speed is measured in bench/ (docs/BENCHMARKS.md); a test may only bound a
 * wait so that a hang fails, as the wait's deadline (test/helpers/deadline.ts, a call's own timeout,
 * a polling loop's limit), never as `expect(elapsed)`.
 *
 * What is refused: an `expect(…)` whose value is elapsed time (`Date.now() - t0`, `performance.now() -
 * t0`, or a name or property assigned one) with an upper bound (`toBeLessThan…`, `toBeCloseTo`,
 * `.not.toBeGreaterThan…`), and any ordering of a value computed from elapsed time (a rate).
 * A lower bound on elapsed time stays allowed: it shows that something waited (a claim went stale
 * first), and a slow machine only makes it truer.
 */

const NOW_MINUS = /(?:Date\.now|performance\.now|process\.hrtime\.bigint)\(\)\s*-(?!=)/;
const ORDERING = /^(?:toBeLessThan|toBeLessThanOrEqual|toBeGreaterThan|toBeGreaterThanOrEqual|toBeCloseTo)$/;
const UPPER = /^(?:toBeLessThan|toBeLessThanOrEqual|toBeCloseTo)$/;

/** What holds elapsed time, or a value computed from it (a rate), in the code it is read from. */
interface ElapsedNames {
  /** Variables of the file assigned elapsed time: `const took = Date.now() - t0`, `seedMs = Date.now() - started`. */
  elapsed: Set<string>;
  /** Variables of the file computed from those: `const rate = n / (took / 1000)` (one step is what a rate takes). */
  derived: Set<string>;
  /** Properties assigned elapsed time anywhere, such as `ms` in a helper's `{ ...r, ms: Date.now() - t0 }`. */
  properties: Set<string>;
}

function elapsedNames(file: string, everywhere: readonly string[]): ElapsedNames {
  const elapsed = new Set<string>();
  const derived = new Set<string>();
  const properties = new Set<string>();
  for (const m of file.matchAll(new RegExp(String.raw`\b(\w+)\s*=(?!=)\s*` + NOW_MINUS.source, 'g'))) elapsed.add(m[1]!);
  for (const text of everywhere)
    for (const m of text.matchAll(new RegExp(String.raw`\b(\w+)\s*:\s*` + NOW_MINUS.source, 'g'))) properties.add(m[1]!);
  for (const m of file.matchAll(/\b(?:const|let|var)\s+(\w+)\s*=\s*([^;\n]+)/g)) {
    if (elapsed.has(m[1]!) || NOW_MINUS.test(m[2]!)) continue;
    const reads = (n: string) => new RegExp(String.raw`(?<![\w.$])${n}\b`).test(m[2]!);
    const readsProperty = (n: string) => new RegExp(String.raw`\.${n}\b`).test(m[2]!);
    if ([...elapsed].some(reads) || [...properties].some(readsProperty)) derived.add(m[1]!);
  }
  return { elapsed, derived, properties };
}

/** The text of the balanced parentheses opening at `open`, or undefined if they never close. */
function balanced(text: string, open: number): string | undefined {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return text.slice(open + 1, i);
  }
  return undefined;
}

/** The first argument of a call's argument text (up to a comma outside brackets). */
function firstArgument(args: string): string {
  let depth = 0;
  for (let i = 0; i < args.length; i++) {
    const c = args[i]!;
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === ',' && depth === 0) return args.slice(0, i).trim();
  }
  return args.trim();
}

/** Each assertion of a duration or a rate in `text`, as `line: expect(…).matcher`. */
function durationAssertions(text: string, names: ElapsedNames): string[] {
  const found: string[] = [];
  // A plain name (`took`) is the file's variable; a member (`a.ms`, `r!.ms`) is a property.
  const variable = (value: string) => /^([\w$]+)!?$/.exec(value)?.[1];
  const property = (value: string) => /^[\w$]+[!?]?(?:\.[\w$]+[!?]?)*\.([\w$]+)!?$/.exec(value)?.[1];
  for (const m of text.matchAll(/\bexpect\s*\(/g)) {
    const open = m.index + m[0].length - 1;
    const args = balanced(text, open);
    if (args === undefined) continue;
    const chain = /^\)\s*(\.\s*not\s*)?\.\s*(\w+)\s*\(/.exec(text.slice(open + args.length + 1));
    if (!chain || !ORDERING.test(chain[2]!)) continue;
    const upper = UPPER.test(chain[2]!) !== Boolean(chain[1]);
    const value = firstArgument(args);
    const v = variable(value);
    const p = property(value);
    const isElapsed =
      new RegExp(`^\\(?\\s*${NOW_MINUS.source}`).test(value) ||
      (v !== undefined && names.elapsed.has(v)) ||
      (p !== undefined && names.properties.has(p));
    const isDerived = v !== undefined && names.derived.has(v);
    if ((isElapsed && upper) || isDerived) {
      const line = text.slice(0, m.index).split('\n').length;
      found.push(`${line}: expect(${value})${chain[1] ? '.not' : ''}.${chain[2]}`);
    }
  }
  return found;
}

describe('no test asserts a duration or a rate', () => {
  it('the check finds the shapes a duration bound takes, and leaves deadlines, lower bounds and timestamps alone', () => {
    const helper = 'return { ...r, ms: Date.now() - t0 };';
    const refused = [
      'const took = Date.now() - t0;\nexpect(took).toBeLessThan(10_000);',
      'let seedMs = 0;\nseedMs = Date.now() - started;\nexpect(seedMs).toBeLessThan(20_000);',
      "expect(Date.now() - waited, 'skipped').toBeLessThan(120_000);",
      'expect(\n  performance.now() - t0,\n).toBeLessThanOrEqual(5);',
      'for (const a of answers) expect(a.ms).toBeLessThan(36_000);',
      'const elapsed = Date.now() - started;\nexpect(elapsed).not.toBeGreaterThan(3000);',
      'const took = performance.now() - t;\nconst perSecond = n / (took / 1000);\nexpect(perSecond).toBeGreaterThan(100);',
    ];
    for (const code of refused) expect(durationAssertions(code, elapsedNames(code, [code, helper])), code).toHaveLength(1);
    const allowed = [
      'const took = Date.now() - t0;\nexpect(took).toBeGreaterThan(2500);\nexpect(res.status).toBe(201);',
      "const res = await answersWithin('plan', post(), 30_000);\nexpect(res.status).toBe(503);",
      'expect(Date.parse(m.expires_at) - Date.parse(m.issued_at)).toBe(3600_000);',
      'expect(Date.parse(checkout.expires_at)).toBeLessThanOrEqual(after + 900_000);',
      'const ttl = Date.parse(x.expires_at) - Date.now();\nexpect(ttl).toBeGreaterThan(0);',
      'console.log(`took ${Date.now() - t0} ms`);\nexpect(rows).toHaveLength(3);',
      'const deadline = Date.now() + 15_000;\nexpect(count).toBeLessThan(40);',
      'expect(failed.duration_ms).toBeGreaterThanOrEqual(FETCH_TIMEOUT_MS - 100);',
    ];
    for (const code of allowed) expect(durationAssertions(code, elapsedNames(code, [code, helper])), code).toEqual([]);
  });

  it('in test/**/*.test.ts', () => {
    const files = ts('test').filter((f) => !f.split(path.sep).includes('fixtures'));
    const text = new Map(files.map((f) => [f, readFileSync(path.join(ROOT, f), 'utf8')]));
    // Properties come from helpers too: `tryCall` in test/faults/deployment.ts returns `ms`.
    const everywhere = [...text.values()];
    const self = path.relative(ROOT, fileURLToPath(import.meta.url));
    const found = files
      .filter((f) => f.endsWith('.test.ts') && f !== self)
      .flatMap((f) => durationAssertions(text.get(f)!, elapsedNames(text.get(f)!, everywhere)).map((a) => `${f}:${a}`));
    expect(found).toEqual([]);
  });
});

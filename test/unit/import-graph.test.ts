import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, ts as tsFiles } from './source-tree';

/**
 * The import graph of the project's own source (docs/ARCHITECTURE.md, "Layers"): no file imports itself
 * back through others (a circle), and a lower layer imports an upper one at most MAX_IMPORTS_BACK_UP
 * times. Every import counts, `import type` and `export … from` included: a type-only circle is still a
 * circle a reader has to untangle, and it is one edit away from a real one.
 */

const SOURCE_DIRS = ['src', 'api', 'worker', 'activities', 'workflows', 'bin'];

/** The layers, lowest first. A file may import its own layer or a lower one. */
const LAYERS = ['foundation', 'data', 'domain', 'flows', 'agent front ends', 'processes', 'commands'] as const;
type Layer = (typeof LAYERS)[number];

/** Which layer a file is in: the first rule that matches its path. */
const LAYER_RULES: Array<[RegExp, Layer]> = [
  // Knows no business: money, ids, time, errors, configuration, logging, tracing, crypto, the Temporal
  // connection and names, the sentence encoder, development servers.
  [/^src\/[^/]+\.ts$/, 'foundation'],
  [/^src\/(crypto|dev|embedding|temporal|text)\//, 'foundation'],
  // The database (tables, migrations, connection) and the shapes it stores and the API speaks (zod).
  [/^src\/(db|schemas)\//, 'data'],
  // The MCP and A2A faces of the API (api/mcp.ts, api/a2a.ts mount them).
  [/^src\/(a2a|mcp)\//, 'agent front ends'],
  // Every other src/<area>, and each flow's contract, which its client in src/<flow>/ imports.
  [/^src\//, 'domain'],
  [/^workflows\/[^/]+\.shared\.ts$/, 'domain'],
  [/^(activities|workflows)\//, 'flows'],
  [/^(api|worker)\//, 'processes'],
  [/^bin\//, 'commands'],
];

/** The ceiling on imports from a lower layer to an upper one (docs/ARCHITECTURE.md has today's count). */
const MAX_IMPORTS_BACK_UP = 15;

const layerOf = (file: string): Layer | undefined => LAYER_RULES.find(([re]) => re.test(file))?.[1];

/** The file a relative specifier names (extensionless, a directory's index, or `.js` for `.ts`), or null. */
function resolve(from: string, specifier: string): string | null {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const candidates = [`${base}.ts`, `${base}/index.ts`, base.replace(/\.js$/, '.ts'), base];
  return candidates.find((c) => existsSync(path.join(ROOT, c)) && statSync(path.join(ROOT, c)).isFile()) ?? null;
}

interface Graph {
  files: string[];
  /** file → the source files it imports (each once). */
  imports: Map<string, string[]>;
  unresolved: string[];
}

function readGraph(): Graph {
  const files = SOURCE_DIRS.flatMap((d) => tsFiles(d)).map((f) => f.split(path.sep).join('/'));
  const inSource = new Set(files);
  const imports = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of files) {
    // readImportFiles: import/export declarations, `import type` included; detectJavaScriptImports: import().
    const { importedFiles } = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue; // a package
      const target = resolve(file, fileName);
      if (!target) unresolved.push(`${file}: '${fileName}'`);
      else if (inSource.has(target)) targets.add(target); // examples/ and the like are outside the graph
    }
    imports.set(file, [...targets]);
  }
  return { files, imports, unresolved };
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function circles(g: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of g.imports.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || g.imports.get(v)!.includes(v)) found.push(component.sort());
  };
  for (const f of g.files) if (!index.has(f)) visit(f);
  return found;
}

/** One shortest way round a circle, from its first file back to it, for the failure message. */
function loopThrough(g: Graph, component: string[]): string[] {
  const members = new Set(component);
  const start = component[0]!;
  const from = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const w of g.imports.get(queue[i]!)!) {
      if (!members.has(w)) continue;
      if (w === start) {
        const loop = [start];
        for (let at: string | undefined = queue[i]; at !== undefined && at !== start; at = from.get(at)) loop.splice(1, 0, at);
        return [...loop, start];
      }
      if (!from.has(w)) {
        from.set(w, queue[i]!);
        queue.push(w);
      }
    }
  }
  return component;
}

describe('the import graph', () => {
  const g = readGraph();

  it('reads the whole source: every file has a layer, every relative import names a file', () => {
    expect(g.files.length).toBeGreaterThan(300);
    expect([...g.imports.values()].reduce((n, t) => n + t.length, 0)).toBeGreaterThan(1000);
    expect(g.files.filter((f) => !layerOf(f))).toEqual([]);
    expect(g.unresolved).toEqual([]);
  });

  it('has no circles', () => {
    const found = circles(g);
    const report = found.map((c) => `${c.length} files: ${c.join(', ')}\n  e.g. ${loopThrough(g, c).join(' → ')}`);
    expect(found.length, `import circles:\n${report.join('\n')}`).toBe(0);
  });

  it(`has at most ${MAX_IMPORTS_BACK_UP} imports from a lower layer to an upper one`, () => {
    const rank = (f: string) => LAYERS.indexOf(layerOf(f)!);
    const backUp = g.files.flatMap((f) =>
      g.imports
        .get(f)!
        .filter((t) => rank(t) > rank(f))
        .map((t) => `${f} (${layerOf(f)}) → ${t} (${layerOf(t)})`),
    );
    expect(backUp.length, `imports back up:\n${backUp.join('\n')}`).toBeLessThanOrEqual(MAX_IMPORTS_BACK_UP);
  });
});

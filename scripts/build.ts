/**
 * `npm run build`: the production build in `dist/`, run with the development dependencies.
 *
 * - TypeScript → JavaScript with the TypeScript compiler (tsconfig.build.json names the production
 *   entry points; every module they import is compiled). The sources import each other without file extensions (resolved by tsx and vitest);
 *   Node's ES module loader needs real file names, so the emit rewrites every relative specifier to
 *   the `.js` file (or `/index.js`) it resolves to. A specifier that resolves to no source file fails
 *   the build instead of failing at start.
 * - The workflow bundles, prebuilt with the SDK's bundler into `dist/workflow-bundle.js` and its traced
 *   twin `dist/workflow-bundle.traced.js` (worker/bundle.ts): the worker loads one
 *   (`workflowBundle: { codePath }`) instead of bundling at every start.
 * - Files the code reads at run time (api/documents) copied next to the compiled modules.
 * - `dist/build-info.json`: the package version and the commit built (env GIT_COMMIT, as the Dockerfile
 *   passes it, else the checkout's HEAD, else `dev`), from which the worker names its version
 *   (src/temporal/versioning.ts) where no `.git` is.
 *
 * After it, `node dist/api/main.js` and `node dist/worker/main.js` run with production dependencies only.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { writeWorkflowBundles } from '../worker/bundle';
import { BUILD_INFO_FILE, gitCommit, type BuildInfo } from '../src/temporal/versioning';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};
const PROD_DEPENDENCIES = PACKAGE.dependencies;
const DIST = path.join(ROOT, 'dist');
export const WORKFLOW_BUNDLE_FILE = 'workflow-bundle.js';

function isFile(p: string): boolean {
  return existsSync(p) && statSync(p).isFile();
}

/** The emitted name of a relative specifier, resolved against the source file importing it. */
function rewriteSpecifier(spec: string, fromFile: string, problems: string[]): string {
  if (!spec.startsWith('./') && !spec.startsWith('../')) return spec;
  if (/\.(js|mjs|cjs|json)$/.test(spec)) return spec;
  const base = path.resolve(path.dirname(fromFile), spec);
  if (isFile(`${base}.ts`)) return `${spec}.js`;
  if (isFile(path.join(base, 'index.ts'))) return `${spec.replace(/\/$/, '')}/index.js`;
  problems.push(`${path.relative(ROOT, fromFile)}: cannot resolve '${spec}'`);
  return spec;
}

function specifierRewriter(problems: string[]): ts.TransformerFactory<ts.SourceFile> {
  return (context) => (sourceFile) => {
    const f = context.factory;
    const fromFile = sourceFile.fileName;
    const lit = (node: ts.Expression | undefined) => (node && ts.isStringLiteral(node) ? node : undefined);
    const visit = (node: ts.Node): ts.Node => {
      if (ts.isImportDeclaration(node)) {
        const s = lit(node.moduleSpecifier);
        if (s) {
          const next = rewriteSpecifier(s.text, fromFile, problems);
          if (next !== s.text)
            return f.updateImportDeclaration(node, node.modifiers, node.importClause, f.createStringLiteral(next), node.attributes);
        }
        return node;
      }
      if (ts.isExportDeclaration(node)) {
        const s = lit(node.moduleSpecifier);
        if (s) {
          const next = rewriteSpecifier(s.text, fromFile, problems);
          if (next !== s.text)
            return f.updateExportDeclaration(
              node,
              node.modifiers,
              node.isTypeOnly,
              node.exportClause,
              f.createStringLiteral(next),
              node.attributes,
            );
        }
        return node;
      }
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const s = lit(node.arguments[0]);
        if (s) {
          const next = rewriteSpecifier(s.text, fromFile, problems);
          if (next !== s.text)
            return f.updateCallExpression(node, node.expression, node.typeArguments, [
              f.createStringLiteral(next),
              ...node.arguments.slice(1),
            ]);
        }
      }
      return ts.visitEachChild(node, visit, context);
    };
    return ts.visitEachChild(sourceFile, visit, context);
  };
}

/**
 * Every module reachable from the entry points, each transpiled on its own (`isolatedModules` makes
 * that exact; type errors are `npm run typecheck`'s job, which `npm test` and CI run).
 */
async function compile(): Promise<number> {
  const configPath = path.join(ROOT, 'tsconfig.build.json');
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT, undefined, configPath);
  const problems: string[] = [];
  const seen = new Set<string>();
  const queue = [...parsed.fileNames.map((f) => path.resolve(f))];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = await readFile(file, 'utf8');
    for (const ref of ts.preProcessFile(source, true, true).importedFiles) {
      const spec = ref.fileName;
      if (!spec.startsWith('./') && !spec.startsWith('../')) {
        // A package the production install lacks would fail at start: only `dependencies` (and Node's own modules).
        const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (!spec.startsWith('node:') && !builtinModules.includes(pkg) && !(pkg in PROD_DEPENDENCIES)) {
          problems.push(`${path.relative(ROOT, file)}: imports '${spec}', which is not in package.json "dependencies"`);
        }
        continue;
      }
      const rewritten = rewriteSpecifier(spec, file, problems);
      if (rewritten.endsWith('.js')) queue.push(path.resolve(path.dirname(file), rewritten.replace(/\.js$/, '.ts')));
    }
    const out = ts.transpileModule(source, {
      compilerOptions: parsed.options,
      fileName: file,
      reportDiagnostics: true,
      transformers: { after: [specifierRewriter(problems)] },
    });
    const errors = (out.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
    if (errors.length)
      problems.push(...errors.map((d) => `${path.relative(ROOT, file)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`));
    const target = path.join(DIST, path.relative(ROOT, file)).replace(/\.ts$/, '.js');
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, out.outputText.replace(/\/\/# sourceMappingURL=.*$/m, `//# sourceMappingURL=${path.basename(target)}.map`));
    if (out.sourceMapText) await writeFile(`${target}.map`, out.sourceMapText);
  }
  if (problems.length) throw new Error(`build failed:\n${[...new Set(problems)].join('\n')}`);
  // Development-only code must not reach the production build (its packages are not installed there).
  const devOnly = [...seen]
    .map((f) => path.relative(ROOT, f))
    .filter((f) => f.startsWith('src/dev/') || f.startsWith('test/') || f.startsWith('bench/'));
  if (devOnly.length) throw new Error(`production entry points import development-only modules: ${devOnly.join(', ')}`);
  return seen.size;
}

/** What the build is made of, for the worker's build id: checked first, so a bad GIT_COMMIT fails before compiling. */
function buildInfo(): BuildInfo {
  const fromEnv = process.env.GIT_COMMIT || undefined;
  if (fromEnv !== undefined && !/^[0-9A-Za-z._-]+$/.test(fromEnv))
    throw new Error(`GIT_COMMIT='${fromEnv}': letters, digits, ".", "_" and "-" only (it becomes part of the worker's build id)`);
  return { version: PACKAGE.version, commit: fromEnv ?? gitCommit(ROOT) ?? 'dev' };
}

async function main() {
  const started = Date.now();
  const info = buildInfo();
  await rm(DIST, { recursive: true, force: true });
  const modules = await compile();
  await cp(path.join(ROOT, 'api', 'documents'), path.join(DIST, 'api', 'documents'), { recursive: true });
  // The same bundles a worker makes in development (worker/bundle.ts).
  await writeWorkflowBundles(path.join(DIST, WORKFLOW_BUNDLE_FILE));
  // Marks dist/ as ES modules on its own, whatever copies it (the root package.json also does).
  await writeFile(path.join(DIST, 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);
  await writeFile(path.join(DIST, BUILD_INFO_FILE), `${JSON.stringify(info)}\n`);
  console.log(
    `built dist/ (${modules} modules and the workflow bundles; version ${info.version}, commit ${info.commit}) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

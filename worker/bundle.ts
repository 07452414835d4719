/**
 * Where a worker's workflow code comes from: a bundle file (WORKFLOW_BUNDLE_PATH, or the production
 * build's), else the workflows bundled from source. Kept apart from the worker itself so that a test
 * run can prebuild the bundle without loading the activities.
 */

import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';

const noop = () => {};
const quietBundlerLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: console.error, log: noop };

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
/** Written by `npm run build` next to the compiled modules (dist/workflow-bundle.js); absent in development. */
export const PREBUILT_WORKFLOW_BUNDLE = fileURLToPath(new URL('../workflow-bundle.js', import.meta.url));

/**
 * A bundle file comes as a pair: `x.js` without the OpenTelemetry workflow interceptors and its traced
 * twin `x.traced.js` with them. The interceptors cost every workflow run about 3 ms of the workflow
 * thread when it is created (their modules' set-up; measured 4 → 1 ms median per created run), so a
 * worker with tracing off loads the bundle without them; with tracing on, the twin, whose workflow
 * spans leave the sandbox through the exporter sink.
 */
const tracedTwin = (file: string): string => file.replace(/(\.js)?$/, '.traced.js');

const TRACING_INTERCEPTOR_MODULES = [
  createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
];

/** The workflows bundled from source with the SDK's bundler (webpack): a second or two of CPU. */
export function bundleWorkflowsFromSource(opts: { traced: boolean }): Promise<{ code: string }> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: opts.traced ? TRACING_INTERCEPTOR_MODULES : [],
    logger: quietBundlerLogger,
  });
}

/** Writes the pair of bundles (each written whole, then renamed): `file` and its traced twin. */
export async function writeWorkflowBundles(file: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  for (const [target, traced] of [
    [file, false],
    [tracedTwin(file), true],
  ] as const) {
    const { code } = await bundleWorkflowsFromSource({ traced });
    await writeFile(`${target}.partial`, code);
    await rename(`${target}.partial`, target);
  }
}

const bundles = new Map<boolean, Promise<WorkflowBundleOption>>();
/**
 * `codePath` (WORKFLOW_BUNDLE_PATH) when given, else the production build's prebuilt bundle when there
 * is one (no bundler work at start), else the workflows bundled from source once per process: every
 * worker built here shares it. `traced` picks the traced twin of a file (tracing on).
 */
export function workflowBundle(codePath: string | undefined, opts: { traced: boolean }): Promise<WorkflowBundleOption> {
  const pick = (file: string) => (opts.traced ? tracedTwin(file) : file);
  if (codePath) {
    const file = pick(codePath);
    if (!existsSync(file)) return Promise.reject(new Error(`WORKFLOW_BUNDLE_PATH: no workflow bundle at ${file}`));
    return Promise.resolve({ codePath: file });
  }
  let bundle = bundles.get(opts.traced);
  if (!bundle) {
    const prebuilt = pick(PREBUILT_WORKFLOW_BUNDLE);
    bundle = existsSync(prebuilt) ? Promise.resolve({ codePath: prebuilt }) : bundleWorkflowsFromSource(opts);
    bundles.set(opts.traced, bundle);
  }
  return bundle;
}

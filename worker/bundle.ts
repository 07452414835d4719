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
 * The OpenTelemetry workflow interceptors are always in the bundle (the prebuilt one cannot depend on
 * the env at start); with tracing off their spans go to a processor that drops them.
 */
export const WORKFLOW_INTERCEPTOR_MODULES = [
  createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
];

/** The workflows bundled from source with the SDK's bundler (webpack): seconds of CPU. */
export function bundleWorkflowsFromSource(): Promise<{ code: string }> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: quietBundlerLogger,
  });
}

/**
 * Bundles the workflows once into `file` (written whole, then renamed), for workers started with
 * `WORKFLOW_BUNDLE_PATH=file`: many worker processes of the same source then skip the bundler.
 */
export async function bundleWorkflowsToFile(file: string): Promise<void> {
  const { code } = await bundleWorkflowsFromSource();
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(`${file}.partial`, code);
  await rename(`${file}.partial`, file);
}

let bundle: Promise<WorkflowBundleOption> | undefined;
/**
 * `codePath` (WORKFLOW_BUNDLE_PATH) when given, else the production build's prebuilt bundle when there
 * is one (no bundler work at start), else the workflows bundled from source once per process: every
 * worker built here shares it.
 */
export function workflowBundle(codePath?: string): Promise<WorkflowBundleOption> {
  if (codePath) {
    if (!existsSync(codePath)) return Promise.reject(new Error(`WORKFLOW_BUNDLE_PATH: no workflow bundle at ${codePath}`));
    return Promise.resolve({ codePath });
  }
  bundle ??= existsSync(PREBUILT_WORKFLOW_BUNDLE) ? Promise.resolve({ codePath: PREBUILT_WORKFLOW_BUNDLE }) : bundleWorkflowsFromSource();
  return bundle;
}

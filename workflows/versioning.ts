import * as wf from '@temporalio/workflow';
import type { VersioningBehavior } from '@temporalio/common';

/** A workflow function, with the behaviour it states (read by test/unit/workflow-versioning.test.ts). */
type Workflow = ((...args: never[]) => Promise<unknown>) & { statedVersioningBehavior?: VersioningBehavior };

/**
 * States a workflow type's Worker Versioning behaviour (docs/OPERATIONS.md, "Changing a workflow"):
 * pinned, or auto-upgrade. Temporal takes a behaviour only from a worker of a deployment version: an
 * unversioned worker that sends one has every workflow task refused ("versioning behavior cannot be
 * specified without deployment options being set with versioned mode"). So it is sent only when this
 * task runs on a versioned worker; an unversioned one (WORKER_VERSIONING=off, the tests' workers, a
 * replay) runs the workflow as before.
 */
export function statesVersioning(behavior: VersioningBehavior, fn: Workflow): void {
  wf.setWorkflowOptions(() => (wf.workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: behavior } : {}), fn);
  fn.statedVersioningBehavior = behavior;
}

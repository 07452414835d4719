/**
 * The workflow code's release and the patches it carries (docs/OPERATIONS.md, "Changing a workflow").
 *
 * A release reaches a running deployment as a new worker deployment version (src/temporal/versioning.ts):
 * pinned workflow types finish on the version they started on, so their code changes without
 * patches; an auto-upgrade type (a delivery, whose retries span hours) moves to the new version at its
 * next workflow task, so a change to its commands is guarded by `patched()` for one release, then
 * `deprecatePatch()`, then removed. test/histories/release-<n>/ holds the recorded shape of each
 * workflow at release n: the current release's, and the previous release's for auto-upgrade types
 * (which must still replay on the current code); test/unit/workflow-versioning.test.ts holds the
 * workflows to this.
 */

/** The release whose shapes test/histories/release-<WORKFLOW_RELEASE>/ records. */
export const WORKFLOW_RELEASE = 1;

/** Workflow types that move to a new worker version at their next task; every other type is pinned. */
export const AUTO_UPGRADE_WORKFLOWS: readonly string[] = ['delivery'];

/**
 * The patches in workflow code: each names its workflow type (one of AUTO_UPGRADE_WORKFLOWS) and the
 * release that added it, and is removed (after a release of `deprecatePatch`) once no open run can
 * still meet the old branch. None at release 1: every workflow is one version of its process.
 */
export const WORKFLOW_PATCHES: ReadonlyArray<{ workflow: string; patch: string; since: number; deprecated?: boolean }> = [];

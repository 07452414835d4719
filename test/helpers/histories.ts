import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { WORKFLOW_RELEASE } from '../../src/temporal/workflow-release';
import { testWorkflowBundle } from './worker';

/** test/histories/release-<n>/: the recorded shape of each workflow at release n (src/temporal/workflow-release.ts). */
export const releaseHistories = (release: number) => fileURLToPath(new URL(`../histories/release-${release}/`, import.meta.url));

/**
 * A finished run replays against the current workflow code, and is kept as this release's shape of
 * its workflow for the replay suite (test/temporal.test.ts): written when missing, or re-recorded on
 * request (RECORD_HISTORIES=1), so test runs do not churn the checked-in files.
 */
export async function replayAndRecord(client: Client, workflowId: string, file: string): Promise<void> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  await Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, workflowId);
  const dir = releaseHistories(WORKFLOW_RELEASE);
  if (process.env.RECORD_HISTORIES || !existsSync(dir + file)) {
    await mkdir(dir, { recursive: true });
    await writeFile(dir + file, `${historyToJSON(history)}\n`);
  }
}

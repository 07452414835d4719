import type { Client } from '@temporalio/client';
import type { Db } from '../db/connect';
import type { TemporalHandle } from '../temporal/client';
import { perTaskQueue } from '../temporal/names';
import { catalogEmbeddingDue } from '../catalog/embeddings';
import { EMBEDDING_MODEL } from '../embedding/model';
import { CATALOG_EMBEDDING_WORKFLOW } from '../../workflows/catalog-embedding.shared';

/**
 * The catalog-embedding flow's starts (docs/RECOMMEND.md, "The semantic tier"). A walk has a fixed
 * workflow id per task queue and is started with USE_EXISTING, so there is one walk at a time however
 * it is asked for: by the `catalogEmbedding` chore of the system-chores loop (every minute, only when
 * the catalog changed since the last walk: src/housekeeping/chores.ts), or at once by an import
 * through the API. A walk is a run of its own rather than the loop's child: it can outlast the loop's
 * run (a 1,000,000-product walk goes on for hours, the loop continues as new every 2), and the API's
 * start must join the same walk. Operators see each walk's progress in the UI.
 */
export function catalogEmbeddingWorkflowId(taskQueue: string): string {
  return perTaskQueue('catalog-embedding', taskQueue);
}

/** Starts a walk, or finds the one running; its workflow id. */
export async function startCatalogEmbedding(temporal: { client: Client; taskQueue: string }): Promise<string> {
  const workflowId = catalogEmbeddingWorkflowId(temporal.taskQueue);
  await temporal.client.workflow.start(CATALOG_EMBEDDING_WORKFLOW, {
    workflowId,
    taskQueue: temporal.taskQueue,
    args: [],
    workflowIdConflictPolicy: 'USE_EXISTING',
    staticSummary: 'Embeds the products whose vectors are missing or stale (the semantic tier of recommendations)',
  });
  return workflowId;
}

/** The chore: a walk when the catalog changed since the last one finished (its id), else null (no run at all). */
export async function startCatalogEmbeddingIfDue(db: Db, temporal: { client: Client; taskQueue: string }): Promise<string | null> {
  if (!(await catalogEmbeddingDue(db, EMBEDDING_MODEL.id))) return null;
  return startCatalogEmbedding(temporal);
}

/**
 * The catalog changed (an import through the API): start a walk now rather than at the loop's next
 * check. Best effort: without Temporal, the loop's next check (within a minute of a worker running) does it.
 */
export async function requestCatalogEmbedding(temporal: TemporalHandle | null): Promise<void> {
  if (!temporal) return;
  await startCatalogEmbedding(temporal).catch(() => undefined);
}

import type { Client, ScheduleOptions } from '@temporalio/client';
import type { TemporalHandle } from '../temporal/client';
import { DEFAULT_TASK_QUEUE } from '../temporal/names';
import { ensureSchedule } from '../temporal/schedules';
import { CATALOG_EMBEDDING_WORKFLOW } from '../../workflows/catalog-embedding.shared';

/**
 * The catalog-embedding flow's Schedule (docs/RECOMMEND.md, "The semantic tier"): every minute, one
 * run at a time, each run finding nothing due unless the catalog changed. An import through the
 * API triggers it at once, so new products become searchable by meaning as soon as the walk reaches them
 * (by full text they are at once). Operators see each walk's progress in the UI, and can pause it.
 */
export function catalogEmbeddingScheduleId(taskQueue: string): string {
  return taskQueue === DEFAULT_TASK_QUEUE ? 'catalog-embedding' : `catalog-embedding-${taskQueue}`;
}

function scheduleOptions(taskQueue: string): ScheduleOptions {
  const scheduleId = catalogEmbeddingScheduleId(taskQueue);
  return {
    scheduleId,
    spec: { intervals: [{ every: '1 minute' }] },
    action: {
      type: 'startWorkflow',
      workflowType: CATALOG_EMBEDDING_WORKFLOW,
      // Temporal appends the scheduled time: one run per tick.
      workflowId: scheduleId,
      taskQueue,
      args: [],
      staticSummary: 'Embeds the products whose vectors are missing or stale (the semantic tier of recommendations)',
    },
    // A walk still going at the next tick is left alone; it reaches the new products at the end.
    policies: { overlap: 'SKIP', catchupWindow: '1 minute', pauseOnFailure: false },
  };
}

/** Ensures the Schedule (every worker start); its next tick, within a minute, catches up with what changed while no worker ran. */
export async function ensureCatalogEmbeddingSchedule(client: Client, taskQueue: string): Promise<{ scheduleId: string; created: boolean }> {
  return ensureSchedule(client, scheduleOptions(taskQueue));
}

/**
 * The catalog changed (an import through the API): start a walk now rather than at the next tick.
 * Best effort: without Temporal, or with the Schedule missing, the next worker start or tick does it.
 */
export async function requestCatalogEmbedding(temporal: TemporalHandle | null): Promise<void> {
  if (!temporal) return;
  await temporal.client.schedule
    .getHandle(catalogEmbeddingScheduleId(temporal.taskQueue))
    .trigger('SKIP')
    .catch(() => undefined);
}

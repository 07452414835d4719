import * as wf from '@temporalio/workflow';
import type { CatalogEmbeddingActivities } from '../activities/catalog-embedding';
import { searchAttributes as SA } from '../src/temporal/names';
import { CATALOG_EMBEDDING_PROGRESS_QUERY, type CatalogEmbeddingOutcome, type CatalogEmbeddingProgress } from './catalog-embedding.shared';
import { statesVersioning } from './versioning';

const reading = wf.proxyActivities<CatalogEmbeddingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});
// A page is a few hundred products through the encoder: seconds. It heartbeats, so a worker that died
// mid-page is noticed in 30 s and the page runs again elsewhere (it writes nothing twice).
const embedding = wf.proxyActivities<CatalogEmbeddingActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export const progressQuery = wf.defineQuery<CatalogEmbeddingProgress | null>(CATALOG_EMBEDDING_PROGRESS_QUERY);

/** Pages per run before it continues as new, so a 1,000,000-product walk never has a long history. */
const PAGES_PER_RUN = 200;
const PAGE_SIZE = 256;

/**
 * Brings the catalog's vectors up to date: when the catalog changed since the last walk finished,
 * walk it by product id, a page at a time, embedding what is missing or stale; record the version
 * walked. Progress (products looked at / total, embedded, rate) is the run's current details in the
 * UI and its `progress` query. A walk that goes on past a run continues as new from its cursor.
 */
export async function catalogEmbedding(resume?: CatalogEmbeddingProgress): Promise<CatalogEmbeddingOutcome> {
  let progress = resume ?? null;
  wf.setHandler(progressQuery, () => progress);
  if (!progress) {
    const due = await reading.catalogEmbeddingDue();
    if (!due) {
      wf.setCurrentDetails('every product has its vector: nothing to embed');
      return { status: 'up_to_date', scanned: 0, embedded: 0 };
    }
    progress = { catalogVersion: due.catalogVersion, total: due.total, after: 0, scanned: 0, embedded: 0, startedAtMs: Date.now() };
  }
  wf.upsertSearchAttributes([{ key: SA.FlowStage, value: 'embedding' }]);
  for (let page = 0; ; page++) {
    if (page >= PAGES_PER_RUN || wf.workflowInfo().continueAsNewSuggested) await wf.continueAsNew<typeof catalogEmbedding>(progress);
    const done: { cursor: number | null; scanned: number; embedded: number } = await embedding.embedCatalogPage({
      after: progress.after,
      pageSize: PAGE_SIZE,
    });
    if (done.cursor === null) break;
    progress = { ...progress, after: done.cursor, scanned: progress.scanned + done.scanned, embedded: progress.embedded + done.embedded };
    wf.setCurrentDetails(describe(progress));
  }
  await reading.recordCatalogEmbedded({ catalogVersion: progress.catalogVersion });
  wf.upsertSearchAttributes([{ key: SA.FlowStage, value: 'embedded' }]);
  wf.setCurrentDetails(`done: ${describe(progress)}`);
  return { status: 'embedded', scanned: progress.scanned, embedded: progress.embedded };
}
// Pinned: each run is at most a few hundred pages; a walk that goes on continues as new on the current version.
statesVersioning('PINNED', catalogEmbedding);

function describe(p: CatalogEmbeddingProgress): string {
  const seconds = Math.max(1, (Date.now() - p.startedAtMs) / 1000);
  return `${p.scanned} of ${p.total} products looked at, ${p.embedded} embedded (${Math.round(p.embedded / seconds)} products/s), up to product ${p.after}`;
}

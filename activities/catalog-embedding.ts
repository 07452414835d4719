import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { catalogEmbeddingDue, embedCatalogPage, recordCatalogEmbedded, type EmbedPageResult } from '../src/catalog/embeddings';
import { EncoderThread } from '../src/embedding/encoder-thread';
import { EMBEDDING_MODEL, findEmbeddingModel } from '../src/embedding/model';

const HEARTBEAT_EVERY_MS = 5000;

/**
 * Activities of the catalog-embedding flow: thin wrappers over src/catalog/embeddings.ts. The worker
 * loads the encoder on the first page it embeds (EMBEDDING_THREADS threads) and keeps it, on a thread
 * of its own, so a page's seconds of inference never hold up the worker's other activities and
 * workflow tasks (src/embedding/encoder-thread.ts).
 */
export function createCatalogEmbeddingActivities({ db, config }: ActivityDeps) {
  let encoder: Promise<EncoderThread> | null = null;
  const loaded = () =>
    (encoder ??= findEmbeddingModel()
      .then((files) => EncoderThread.start(files, { threads: config.EMBEDDING_THREADS }))
      .catch((err) => {
        encoder = null;
        throw err;
      }));
  return {
    async catalogEmbeddingDue(): Promise<{ catalogVersion: string; total: number } | null> {
      return catalogEmbeddingDue(db, EMBEDDING_MODEL.id);
    },
    async embedCatalogPage(input: { after: number; pageSize: number }): Promise<EmbedPageResult> {
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_EVERY_MS);
      try {
        // Cancelled (the worker drains past its grace, or the walk was cancelled): stops between two stores.
        return await embedCatalogPage(db, await loaded(), { ...input, signal: ctx.cancellationSignal });
      } finally {
        clearInterval(beat);
      }
    },
    async recordCatalogEmbedded(input: { catalogVersion: string }): Promise<void> {
      await recordCatalogEmbedded(db, EMBEDDING_MODEL.id, input.catalogVersion);
    },
  };
}

export type CatalogEmbeddingActivities = ReturnType<typeof createCatalogEmbeddingActivities>;

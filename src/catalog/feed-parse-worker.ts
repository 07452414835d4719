import { parentPort, workerData } from 'node:worker_threads';
import { FeedFileError } from './feed-format';
import { encodeChunk, type ChunkSpec } from './feed-parallel';
import { CategoryNames, RowEncoder } from './feed-rows';

/**
 * A worker thread of a large feed import (src/catalog/feed-parallel.ts): chunks of whole records in,
 * their COPY rows, rejections and new categories out. One encoder per thread, so a category new to
 * the catalog is reported once per thread.
 */
const { spec, known } = workerData as { spec: ChunkSpec; known: Array<[string, string]> };
const encoder = new RowEncoder(new CategoryNames(new Map(known)));
const port = parentPort!;

// One chunk at a time: the encoder numbers the rows of a line in order.
let queue: Promise<void> = Promise.resolve();
port.on('message', (m: { id: number; bytes: Uint8Array; lineOffset: number }) => {
  queue = queue.then(() =>
    encodeChunk(spec, encoder, m.bytes, m.lineOffset).then(
      (result) => port.postMessage({ id: m.id, result }),
      (err: Error) => port.postMessage({ id: m.id, error: err.message, fileError: err instanceof FeedFileError }),
    ),
  );
});

import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../../src/db/connect';
import { embedWholeCatalog, textHash, type TextEmbedder } from '../../src/catalog/embeddings';
import { SentenceEncoder } from '../../src/embedding/encoder';
import { findEmbeddingModel } from '../../src/embedding/model';
import { PROJECT_ROOT } from '../../src/temporal/cli';

/**
 * Embeds a test database's catalog in this process, as the embedding flow would, with the vectors
 * of texts already embedded by an earlier run read from a file under .tools/cache (the seeded catalog
 * is the same every run, and embedding it is the longest part of the setup). A vector is looked up by
 * the hash of its text and the model's id, so a changed text or model is embedded anew.
 */
export async function embedTestCatalog(db: Db): Promise<{ scanned: number; embedded: number; fromCache: number }> {
  const encoder = await SentenceEncoder.load(await findEmbeddingModel({ install: true }), { threads: 2 });
  const file = path.join(PROJECT_ROOT, '.tools', 'cache', `embeddings-${encoder.modelId}.bin`);
  const record = 16 + encoder.dims * 4;
  const known = new Map<string, Float32Array>();
  const saved = await readFile(file).catch(() => null);
  if (saved && saved.length % record === 0)
    for (let at = 0; at < saved.length; at += record) {
      const vec = new Float32Array(encoder.dims);
      for (let i = 0; i < encoder.dims; i++) vec[i] = saved.readFloatLE(at + 16 + i * 4);
      known.set(saved.subarray(at, at + 16).toString('hex'), vec);
    }
  let fromCache = 0;
  const added: Buffer[] = [];
  const cached: TextEmbedder = {
    modelId: encoder.modelId,
    dims: encoder.dims,
    async embed(texts) {
      const keys = texts.map((t) => textHash(t).toString('hex'));
      const missing = [...new Set(keys.filter((k) => !known.has(k)))];
      const byKey = new Map(missing.map((k) => [k, texts[keys.indexOf(k)]!]));
      const vectors = await encoder.embed([...byKey.values()]);
      missing.forEach((k, i) => {
        known.set(k, vectors[i]!);
        added.push(Buffer.from(k, 'hex'), Buffer.from(vectors[i]!.buffer, vectors[i]!.byteOffset, vectors[i]!.byteLength));
      });
      fromCache += keys.length - missing.length;
      return keys.map((k) => known.get(k)!);
    },
  };
  try {
    const done = await embedWholeCatalog(db, cached, { pageSize: 512 });
    if (added.length) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(`${file}.tmp`, Buffer.concat([saved && saved.length % record === 0 ? saved : Buffer.alloc(0), ...added]));
      await rename(`${file}.tmp`, file);
    }
    return { ...done, fromCache };
  } finally {
    await encoder.close();
  }
}

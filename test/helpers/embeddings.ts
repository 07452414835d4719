import os from 'node:os';
import { appendFile, mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../../src/db/connect';
import { embedWholeCatalog, recordCatalogEmbedded, textHash, type TextEmbedder } from '../../src/catalog/embeddings';
import { readCatalogVersion } from '../../src/catalog/version';
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
  // Test runs started together would each embed the same 20,000 texts on the same two cores: one
  // embeds and writes the cache while the others wait for it, then read it.
  const release = await cacheLock(path.join(PROJECT_ROOT, '.tools', 'cache', 'embeddings.lock'));
  try {
    return await embedWithCache(db);
  } finally {
    await release();
  }
}

/** An exclusive lock file holding its owner's pid; a lock whose owner is gone is taken over. Waits at most 30 minutes. */
async function cacheLock(file: string): Promise<() => Promise<void>> {
  await mkdir(path.dirname(file), { recursive: true });
  for (const until = Date.now() + 30 * 60_000; ;) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(await readFile(file, 'utf8').catch(() => ''));
      if (owner && !alive(owner)) await rm(file, { force: true });
      if (Date.now() > until) throw new Error(`${file} held by process ${owner} for 30 minutes`, { cause: err });
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function embedWithCache(db: Db): Promise<{ scanned: number; embedded: number; fromCache: number }> {
  // Nothing else runs during the global setup: the encoder may have every core.
  const encoder = await SentenceEncoder.load(await findEmbeddingModel({ install: true }), { threads: os.availableParallelism() });
  const file = path.join(PROJECT_ROOT, '.tools', 'cache', `embeddings-${encoder.modelId}.bin`);
  const record = 16 + encoder.dims * 4;
  const known = new Map<string, Float32Array>();
  const saved = (await readFile(file).catch(() => null)) ?? Buffer.alloc(0);
  // Whole records only: a run killed mid-append leaves a partial last one, which is dropped.
  const whole = saved.subarray(0, saved.length - (saved.length % record));
  for (let at = 0; at < whole.length; at += record) {
    const vec = new Float32Array(encoder.dims);
    for (let i = 0; i < encoder.dims; i++) vec[i] = whole.readFloatLE(at + 16 + i * 4);
    known.set(whole.subarray(at, at + 16).toString('hex'), vec);
  }
  if (whole.length !== saved.length) await writeFile(file, whole);
  let fromCache = 0;
  const cached: TextEmbedder = {
    modelId: encoder.modelId,
    dims: encoder.dims,
    async embed(texts) {
      const keys = texts.map((t) => textHash(t).toString('hex'));
      const missing = [...new Set(keys.filter((k) => !known.has(k)))];
      const byKey = new Map(missing.map((k) => [k, texts[keys.indexOf(k)]!]));
      const vectors = await encoder.embed([...byKey.values()]);
      const added: Buffer[] = [];
      missing.forEach((k, i) => {
        known.set(k, vectors[i]!);
        added.push(Buffer.from(k, 'hex'), Buffer.from(vectors[i]!.buffer, vectors[i]!.byteOffset, vectors[i]!.byteLength));
      });
      // Appended page by page, so an interrupted run's work is kept for the next.
      if (added.length) await appendFile(file, Buffer.concat(added));
      fromCache += keys.length - missing.length;
      return keys.map((k) => known.get(k)!);
    },
  };
  try {
    const catalogVersion = await readCatalogVersion(db);
    const done = await embedWholeCatalog(db, cached, { pageSize: 512 });
    // Recorded as a walk records it: a worker's catalog check finds nothing due until a test changes
    // the catalog (else every booted worker's system-chores loop walks the whole seeded catalog again).
    await recordCatalogEmbedded(db, encoder.modelId, catalogVersion);
    return { ...done, fromCache };
  } finally {
    await encoder.close();
  }
}

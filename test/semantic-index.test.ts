import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, type Db } from '../src/db/connect';
import { SentenceEncoder } from '../src/embedding/encoder';
import { EMBEDDING_MODEL, findEmbeddingModel } from '../src/embedding/model';
import { SemanticIndex } from '../src/recommend/semantic-index';
import { distinctShopperSentences } from '../bench/shopper-sentences';

/**
 * The semantic index over the seeded catalog's real vectors (the run's database, embedded by the
 * global setup), switched to its inverted-file index by a low threshold: its answers to shopper
 * sentences against an exact index's.
 */
let db: Db;
let encoder: SentenceEncoder;

beforeAll(async () => {
  db = createDb(inject('databaseUrl'), { max: 2 });
  encoder = await SentenceEncoder.load(await findEmbeddingModel());
});
afterAll(async () => {
  await encoder?.close();
  await db?.destroy();
});

describe('SemanticIndex', () => {
  it('builds its inverted-file index past the threshold and then finds ≥ 95 % of the exact top 10', async () => {
    const exact = new SemanticIndex(EMBEDDING_MODEL.id, EMBEDDING_MODEL.dims, 2000, Number.POSITIVE_INFINITY);
    const ann = new SemanticIndex(EMBEDDING_MODEL.id, EMBEDDING_MODEL.dims, 2000, 5000);
    await exact.current(db);
    await ann.current(db);
    expect(ann.size).toBe(exact.size);
    expect(ann.size).toBeGreaterThan(5000);
    await ann.maintainAnn();
    expect(exact.mode).toEqual({ kind: 'exact' });
    const mode = ann.mode;
    expect(mode).toMatchObject({ kind: 'ann', vectors: ann.size });
    if (mode.kind !== 'ann') return;
    expect(mode.probes).toBeLessThan(mode.lists / 4);

    const sentences = distinctShopperSentences(30, 20261128);
    const queries = await encoder.embed(sentences);
    let found = 0;
    for (const q of queries) {
      const truth = new Set(exact.search(q, 10).map((h) => h.productId));
      const hits = ann.search(q, 10);
      expect(hits).toHaveLength(10);
      found += hits.filter((h) => truth.has(h.productId)).length;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });
});

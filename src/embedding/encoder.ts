import { readFile } from 'node:fs/promises';
import { Tokenizer } from '@huggingface/tokenizers';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { EMBEDDING_MODEL, type EmbeddingModelFiles } from './model';

const DEFAULT_BATCH = 32;

/**
 * Sentence embeddings in process: the pinned MiniLM model (src/embedding/model.ts) run by ONNX Runtime
 * on the CPU, with its WordPiece tokenizer in plain JavaScript. A text's vector is the mean of the
 * model's last hidden states over its real tokens (padding excluded), scaled to unit length, so the
 * dot product of two vectors is their cosine similarity.
 *
 * ONNX Runtime's Node binding runs a session synchronously on the JavaScript thread (after a
 * setImmediate), so one batch holds the event loop for its whole run: batches of callers are run one
 * at a time through a queue, and a large `embed` yields between its batches, so a query's `embedOne`
 * waits for one batch of an indexing run, not all of it. Keep batches small where latency matters.
 */
export class SentenceEncoder {
  /** The tail of the queue of batch runs: each run starts when the one before it settled. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly feedsTokenTypes: boolean;

  private constructor(
    private readonly session: InferenceSession,
    private readonly tokenizer: Tokenizer,
    readonly modelId: string,
    readonly dims: number,
    private readonly maxTokens: number,
  ) {
    this.feedsTokenTypes = session.inputNames.includes('token_type_ids');
  }

  /** The model and tokenizer of `files` (findEmbeddingModel's answer); `threads` for ONNX Runtime's intra-op pool (default 1). */
  static async load(files: EmbeddingModelFiles, opts: { threads?: number } = {}): Promise<SentenceEncoder> {
    const threads = opts.threads ?? 1;
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`threads must be a positive integer, got ${threads}`);
    const [tokenizerJson, tokenizerConfig] = await Promise.all([
      readFile(files.tokenizerPath, 'utf8').then((t) => JSON.parse(t) as object),
      readFile(files.tokenizerConfigPath, 'utf8').then((t) => JSON.parse(t) as object),
    ]);
    const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
    const session = await InferenceSession.create(files.modelPath, {
      executionProviders: ['cpu'],
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
    // The graph must be the one this code feeds and reads: a different export fails here, not at the first query.
    const missing = ['input_ids', 'attention_mask'].filter((n) => !session.inputNames.includes(n));
    if (missing.length || !session.outputNames.includes('last_hidden_state')) {
      await session.release();
      throw new Error(
        `${files.modelPath} is not a ${files.id} encoder: inputs ${session.inputNames.join(', ')}, outputs ${session.outputNames.join(', ')} ` +
          '(wanted input_ids, attention_mask → last_hidden_state)',
      );
    }
    return new SentenceEncoder(session, tokenizer, files.id, files.dims, EMBEDDING_MODEL.maxTokens);
  }

  /** Token ids of `text` with [CLS] … [SEP], cut to the model's length keeping the closing [SEP]. */
  private tokens(text: string): number[] {
    const ids = this.tokenizer.encode(text).ids;
    if (ids.length <= this.maxTokens) return ids;
    return [...ids.slice(0, this.maxTokens - 1), ids[ids.length - 1]!];
  }

  /**
   * One unit vector per text, in the order given. Texts are batched by token length (`batchSize`,
   * default 32) so a batch pads little; a text longer than the model's 256 tokens is embedded from its start.
   */
  async embed(texts: string[], opts: { batchSize?: number } = {}): Promise<Float32Array[]> {
    const batchSize = opts.batchSize ?? DEFAULT_BATCH;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
    this.assertOpen();
    if (!texts.length) return [];
    const tokenized = texts.map((t) => this.tokens(t));
    const order = tokenized.map((_, i) => i).sort((a, b) => tokenized[a]!.length - tokenized[b]!.length);
    const out = new Array<Float32Array>(texts.length);
    for (let start = 0; start < order.length; start += batchSize) {
      const batch = order.slice(start, start + batchSize);
      const vectors = await this.enqueue(() => this.runBatch(batch.map((i) => tokenized[i]!)));
      batch.forEach((i, k) => (out[i] = vectors[k]!));
    }
    return out;
  }

  async embedOne(text: string): Promise<Float32Array> {
    const [v] = await this.embed([text]);
    return v!;
  }

  /** Releases the session once the batches already queued have run; later calls are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.catch(() => {});
    await this.session.release();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('SentenceEncoder is closed');
  }

  /** Refused once closed; a batch queued before the close still runs (close waits for it). */
  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    this.assertOpen();
    const next = this.queue.then(work);
    this.queue = next.catch(() => {});
    return next;
  }

  private async runBatch(batch: number[][]): Promise<Float32Array[]> {
    const rows = batch.length;
    const width = Math.max(...batch.map((ids) => ids.length));
    const ids = new BigInt64Array(rows * width); // [PAD] is id 0
    const mask = new BigInt64Array(rows * width);
    batch.forEach((tokens, r) =>
      tokens.forEach((id, c) => {
        ids[r * width + c] = BigInt(id);
        mask[r * width + c] = 1n;
      }),
    );
    const feeds: Record<string, Tensor> = {
      input_ids: new Tensor('int64', ids, [rows, width]),
      attention_mask: new Tensor('int64', mask, [rows, width]),
    };
    // One sentence, no pair: every token is of segment 0.
    if (this.feedsTokenTypes) feeds.token_type_ids = new Tensor('int64', new BigInt64Array(rows * width), [rows, width]);
    const result = await this.session.run(feeds, ['last_hidden_state']);
    const hidden = result.last_hidden_state!;
    try {
      const dims = hidden.dims[2];
      if (dims !== this.dims) throw new Error(`${this.modelId} answered ${dims}-dimensional states, expected ${this.dims}`);
      const states = hidden.data as Float32Array;
      return batch.map((tokens, r) => {
        const v = new Float32Array(this.dims);
        // Real tokens sit first in each row; the padding after them is left out of the mean.
        for (let c = 0; c < tokens.length; c++) {
          const at = (r * width + c) * this.dims;
          for (let d = 0; d < this.dims; d++) v[d]! += states[at + d]!;
        }
        let norm = 0;
        for (let d = 0; d < this.dims; d++) norm += v[d]! * v[d]!;
        // The mean's 1/n cancels in the normalisation; the epsilon guards an all-zero vector.
        const scale = 1 / Math.max(Math.sqrt(norm), 1e-12);
        for (let d = 0; d < this.dims; d++) v[d]! *= scale;
        return v;
      });
    } finally {
      hidden.dispose();
    }
  }
}

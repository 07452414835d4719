import type { Db } from '../db/connect';
import type { TextEmbedder } from '../catalog/embeddings';
import { EncoderThread } from '../embedding/encoder-thread';
import { EMBEDDING_MODEL, findEmbeddingModel } from '../embedding/model';
import { SemanticIndex, type SemanticHit } from './semantic-index';

/** Query vectors kept per process: agents repeat their phrasings, and a repeat costs no encoder run. */
const QUERY_CACHE = 10_000;
/** Scans kept per process (their answers are only valid for the index version they ran on). */
const SCAN_CACHE = 2_000;

const normalise = (text: string) => text.trim().toLowerCase().replace(/\s+/g, ' ');

/**
 * The semantic tier of an API process (docs/RECOMMEND.md): the sentence encoder, loaded on the first
 * query that needs it, an LRU of query vectors, and the in-memory index of the catalog's product
 * vectors, kept current from Postgres.
 */
export class SemanticTier {
  private encoder: Promise<TextEmbedder> | null = null;
  private readonly queries = new Map<string, Float32Array>();
  private readonly scans = new Map<string, SemanticHit[]>();
  /** Sentences waiting for the encoder's next run, each with its callers. */
  private waiting = new Map<string, Array<{ resolve(v: Float32Array): void; reject(err: unknown): void }>>();
  private encoding = false;
  readonly index: SemanticIndex;

  constructor(
    private readonly loadEncoder: () => Promise<TextEmbedder>,
    model: { id: string; dims: number },
  ) {
    this.index = new SemanticIndex(model.id, model.dims);
  }

  /**
   * The shopper's sentence as a unit vector (cached by its normalised text). Sentences that arrive
   * while the encoder is busy wait for its next run and go through it together, one batch: under
   * load a batch of ten short sentences costs the encoder far less than ten runs of one, and the
   * same sentence asked twice meanwhile is embedded once.
   */
  embedQuery(text: string): Promise<Float32Array> {
    const key = normalise(text);
    const hit = this.queries.get(key);
    if (hit) {
      this.queries.delete(key); // most recently used goes last
      this.queries.set(key, hit);
      return Promise.resolve(hit);
    }
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      void this.runWaiting();
    });
  }

  /** One encoder run at a time, over every sentence waiting when it starts. */
  private async runWaiting(): Promise<void> {
    if (this.encoding || !this.waiting.size) return;
    this.encoding = true;
    const batch = this.waiting;
    this.waiting = new Map();
    try {
      this.encoder ??= this.loadEncoder().catch((err) => {
        this.encoder = null; // a failed load is tried again by the next query
        throw err;
      });
      const keys = [...batch.keys()];
      const vectors = await (await this.encoder).embed(keys);
      keys.forEach((key, i) => {
        this.queries.set(key, vectors[i]!);
        if (this.queries.size > QUERY_CACHE) this.queries.delete(this.queries.keys().next().value!);
        for (const w of batch.get(key)!) w.resolve(vectors[i]!);
      });
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
    } finally {
      this.encoding = false;
      void this.runWaiting();
    }
  }

  /**
   * The `k` products nearest the sentence, at least `minScore` similar, best first. A repeated
   * sentence is answered from the last scan while the index has not changed since (a scan of a
   * 20,000-product index costs more than the encoder's run for a short sentence).
   */
  async search(db: Db, text: string, k: number, minScore = -1): Promise<SemanticHit[]> {
    const [q, index] = await Promise.all([this.embedQuery(text), this.index.current(db)]);
    const key = `${index.version}\u0000${k}\u0000${minScore}\u0000${normalise(text)}`;
    const known = this.scans.get(key);
    if (known) return known;
    const hits = index.search(q, k, minScore);
    this.scans.set(key, hits);
    if (this.scans.size > SCAN_CACHE) this.scans.delete(this.scans.keys().next().value!);
    return hits;
  }
}

/**
 * The API process's semantic tier (SEMANTIC_SEARCH=on, the default), or none. Its encoder runs on a
 * thread of its own with one ONNX Runtime thread: a query is a few milliseconds of it, during which
 * the API's own thread serves the other requests.
 */
export function createSemanticTier(config: { SEMANTIC_SEARCH: 'on' | 'off' }): SemanticTier | undefined {
  if (config.SEMANTIC_SEARCH === 'off') return undefined;
  return new SemanticTier(async () => EncoderThread.start(await findEmbeddingModel(), { threads: 1 }), EMBEDDING_MODEL);
}

import { sql } from 'kysely';
import type { Db } from '../db/connect';
import { bytesToVector } from '../catalog/embeddings';

export interface SemanticHit {
  productId: number;
  /** Cosine similarity (the vectors are unit length). */
  score: number;
}

/** Rows read from Postgres per round trip while the index catches up. */
const LOAD_PAGE = 5000;

/**
 * The catalog's product vectors of one model, held in this process for search (docs/RECOMMEND.md,
 * "The semantic tier"). Postgres is the system of record; the index follows it by `seq`: every write
 * of an embedding takes a new seq, so the rows past the highest seq held are exactly what changed.
 * Checked at most every `checkEveryMs` (refresh-ahead: a search never waits on a check in flight
 * once something is loaded). The search is exact: a scan of every vector.
 */
export class SemanticIndex {
  private vectors: Float32Array;
  private ids: number[] = [];
  private slotOf = new Map<number, number>();
  private lastSeq = '0';
  private checkedAt = 0;
  private pending: Promise<void> | null = null;

  constructor(
    readonly modelId: string,
    readonly dims: number,
    private readonly checkEveryMs = 2000,
  ) {
    this.vectors = new Float32Array(dims * 1024);
  }

  /** Changes whenever the vectors held do (the highest seq loaded). */
  get version(): string {
    return this.lastSeq;
  }

  /** Whether the product's vector is held (a product imported since the last walk has none yet). */
  has(productId: number): boolean {
    return this.slotOf.has(productId);
  }

  get size(): number {
    return this.ids.length;
  }

  /** The index as of now: loads what is new, waiting only when nothing is loaded yet. */
  async current(db: Db): Promise<this> {
    if (Date.now() - this.checkedAt < this.checkEveryMs) return this;
    const caughtUp = this.catchUp(db);
    if (this.size === 0) await caughtUp;
    else caughtUp.catch(() => undefined); // served as it is meanwhile; the next call checks again
    return this;
  }

  /** Reads every embedding written since the last one held (shared by concurrent callers). */
  catchUp(db: Db): Promise<void> {
    this.pending ??= (async () => {
      for (;;) {
        const { rows } = await sql<{ product_id: string; vec: Buffer; seq: string }>`
          select product_id, vec, seq from product_embeddings
          where model_id = ${this.modelId} and seq > ${this.lastSeq}::bigint
          order by seq limit ${LOAD_PAGE}`.execute(db);
        for (const r of rows) this.put(Number(r.product_id), bytesToVector(r.vec));
        if (rows.length) this.lastSeq = rows.at(-1)!.seq;
        if (rows.length < LOAD_PAGE) break;
      }
      this.checkedAt = Date.now();
    })().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private put(productId: number, v: Float32Array): void {
    if (v.length !== this.dims) return; // another model's shape: never mixed in
    let slot = this.slotOf.get(productId);
    if (slot === undefined) {
      slot = this.ids.length;
      if ((slot + 1) * this.dims > this.vectors.length) {
        const grown = new Float32Array(this.vectors.length * 2);
        grown.set(this.vectors);
        this.vectors = grown;
      }
      this.ids.push(productId);
      this.slotOf.set(productId, slot);
    }
    this.vectors.set(v, slot * this.dims);
  }

  /** The `k` nearest products to the unit vector `q` with a similarity of at least `minScore`, best first. */
  search(q: Float32Array, k: number, minScore = -1): SemanticHit[] {
    const d = this.dims;
    const vs = this.vectors;
    // A sorted list of the best k so far; a candidate must beat its last to get in.
    const top: SemanticHit[] = [];
    let floor = minScore;
    for (let slot = 0, n = this.ids.length; slot < n; slot++) {
      let dot = 0;
      const base = slot * d;
      for (let i = 0; i < d; i++) dot += q[i]! * vs[base + i]!;
      if (dot < floor) continue;
      let at = top.length;
      while (at > 0 && top[at - 1]!.score < dot) at--;
      top.splice(at, 0, { productId: this.ids[slot]!, score: dot });
      if (top.length > k) top.pop();
      if (top.length === k) floor = Math.max(floor, top[k - 1]!.score);
    }
    return top;
  }
}

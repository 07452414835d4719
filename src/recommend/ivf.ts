/**
 * An inverted-file (IVF) index over unit vectors, for catalogs too large to scan whole on every query
 * (docs/RECOMMEND.md, "The semantic tier"). The vectors are grouped around centroids found by
 * spherical k-means in two levels (`groups` coarse centroids, each split into `perGroup` fine ones,
 * so training and assigning cost `groups + perGroup` dot products a vector instead of their product);
 * a query scores the fine centroids and scans only the members of its `probes` nearest lists. The
 * vectors stay where the caller keeps them (one Float32Array, `dims` floats a slot): the index holds
 * slot numbers.
 *
 * Why not a library: the ANN packages on npm (usearch, hnswlib-node, faiss-node) build native code at
 * install or fetch binaries from hosts other than the registry, which this project's install forbids.
 * The recall of this one is measured against the exact scan (test/unit/ivf.test.ts, bench/embedding.ts).
 */

export interface IvfOptions {
  /** Coarse centroids; default 32 (fewer for small n). */
  groups?: number;
  /** Fine centroids in each coarse group; default 32 (fewer for small n). */
  perGroup?: number;
  /** Sample points k-means trains on; default 64 per fine list, at most 65,536. */
  sample?: number;
  /** k-means rounds at each level; default 8. */
  iterations?: number;
  /** Vectors handled between two turns given to the event loop; default 256. */
  yieldEvery?: number;
}

export interface IvfHit {
  slot: number;
  score: number;
}

/** A small deterministic generator: the same vectors give the same index. */
function lcg(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

function dotAt(a: Float32Array, aBase: number, b: Float32Array, bBase: number, d: number): number {
  let s = 0;
  for (let i = 0; i < d; i++) s += a[aBase + i]! * b[bBase + i]!;
  return s;
}

/** The index (0..count-1) of the centroid in `centroids` nearest the vector at `base` of `vectors`. */
function nearest(centroids: Float32Array, count: number, vectors: Float32Array, base: number, d: number): number {
  let best = 0;
  let bestScore = -Infinity;
  for (let c = 0; c < count; c++) {
    const s = dotAt(vectors, base, centroids, c * d, d);
    if (s > bestScore) {
      bestScore = s;
      best = c;
    }
  }
  return best;
}

/**
 * Gives the event loop a turn every `every` calls: a build of seconds in an API process runs in slices
 * between requests instead of holding them all up.
 */
function yielder(every: number): () => Promise<void> | undefined {
  let calls = 0;
  return () => (++calls % every === 0 ? new Promise<void>((r) => setImmediate(r)) : undefined);
}

/** Spherical k-means over the points at `points` (slot numbers) of `vectors`: `count` unit centroids. */
async function kmeans(
  vectors: Float32Array,
  points: ArrayLike<number>,
  count: number,
  d: number,
  iterations: number,
  random: () => number,
  pause: () => Promise<void> | undefined,
) {
  const n = points.length;
  const centroids = new Float32Array(count * d);
  for (let c = 0; c < count; c++) {
    const p = points[Math.floor((c * n) / count)]! * d;
    centroids.set(vectors.subarray(p, p + d), c * d);
  }
  const assigned = new Int32Array(n);
  for (let round = 0; round < iterations; round++) {
    for (let i = 0; i < n; i++) {
      assigned[i] = nearest(centroids, count, vectors, points[i]! * d, d);
      await pause();
    }
    const sums = new Float64Array(count * d);
    const sizes = new Int32Array(count);
    for (let i = 0; i < n; i++) {
      const c = assigned[i]!;
      sizes[c]!++;
      const base = points[i]! * d;
      for (let k = 0; k < d; k++) sums[c * d + k]! += vectors[base + k]!;
    }
    for (let c = 0; c < count; c++) {
      if (!sizes[c]) {
        // An empty centroid takes a random point: every list keeps one.
        const p = points[Math.floor(random() * n)]! * d;
        centroids.set(vectors.subarray(p, p + d), c * d);
        continue;
      }
      let norm = 0;
      for (let k = 0; k < d; k++) norm += sums[c * d + k]! ** 2;
      const scale = 1 / Math.max(Math.sqrt(norm), 1e-12);
      for (let k = 0; k < d; k++) centroids[c * d + k] = sums[c * d + k]! * scale;
    }
  }
  return { centroids, assigned };
}

export class IvfIndex {
  /** Members of each fine list: slot numbers. */
  private readonly members: number[][];
  /** The fine list each slot is in (a slot whose vector changed moves). */
  private readonly listOf: number[] = [];

  private constructor(
    readonly dims: number,
    private readonly groups: number,
    private readonly perGroup: number,
    private readonly coarse: Float32Array,
    /** Fine centroids, group by group: list g * perGroup + j is the j-th of group g. */
    private readonly fine: Float32Array,
  ) {
    this.members = Array.from({ length: groups * perGroup }, () => []);
  }

  get lists(): number {
    return this.groups * this.perGroup;
  }

  /**
   * Lists a query scans by default: a fifth of them, at least 8. Shopper sentences fall between the
   * products' clusters, so fewer lose neighbours: on the seeded catalog's real vectors (20,000, and
   * 200,000 as noisy copies of them), 40 distinct shopper sentences found 0.96–0.97 of the exact
   * scan's 10 nearest with a fifth, 0.94–0.95 with a sixth, 0.85 with a twentieth
   * (docs/BENCHMARKS.md, "Semantic tier").
   */
  get defaultProbes(): number {
    return Math.min(this.lists, Math.max(8, Math.ceil(this.lists * 0.2)));
  }

  /**
   * Trains the centroids on a sample of slots 0..n-1 of `vectors` and places those slots, yielding to
   * the event loop every few hundred vectors. Slots added later are `place`d by the caller.
   */
  static async build(vectors: Float32Array, n: number, dims: number, opts: IvfOptions = {}): Promise<IvfIndex> {
    const pause = yielder(opts.yieldEvery ?? 256);
    const side = Math.max(1, Math.round(Math.sqrt(Math.sqrt(n))));
    const groups = Math.max(1, Math.min(opts.groups ?? 32, side));
    const perGroup = Math.max(1, Math.min(opts.perGroup ?? 32, side));
    const iterations = opts.iterations ?? 8;
    const random = lcg(n * 31 + dims);
    const sampleSize = Math.min(n, opts.sample ?? Math.min(65_536, groups * perGroup * 64));
    // A sample of distinct slots (a partial Fisher-Yates over the slot numbers).
    const order = Int32Array.from({ length: n }, (_, i) => i);
    for (let i = 0; i < sampleSize; i++) {
      const j = i + Math.floor(random() * (n - i));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const sample = order.subarray(0, sampleSize);
    const top = await kmeans(vectors, sample, groups, dims, iterations, random, pause);
    const fine = new Float32Array(groups * perGroup * dims);
    for (let g = 0; g < groups; g++) {
      const inGroup = sample.filter((_, i) => top.assigned[i] === g);
      // A group with fewer points than lists repeats its centroid: its extra lists stay empty.
      const points = inGroup.length ? inGroup : Int32Array.of(sample[0]!);
      const within = await kmeans(vectors, points, perGroup, dims, iterations, random, pause);
      fine.set(within.centroids, g * perGroup * dims);
    }
    const index = new IvfIndex(dims, groups, perGroup, top.centroids, fine);
    for (let slot = 0; slot < n; slot++) {
      index.place(vectors, slot);
      await pause();
    }
    return index;
  }

  /** Puts `slot` (new, or its vector changed) in its list: the nearest fine centroid of its nearest coarse one. */
  place(vectors: Float32Array, slot: number): void {
    const d = this.dims;
    const g = nearest(this.coarse, this.groups, vectors, slot * d, d);
    const j = nearest(this.fine.subarray(g * this.perGroup * d, (g + 1) * this.perGroup * d), this.perGroup, vectors, slot * d, d);
    const list = g * this.perGroup + j;
    const was = this.listOf[slot];
    if (was === list) return;
    if (was !== undefined) {
      const members = this.members[was]!;
      const at = members.indexOf(slot);
      if (at >= 0) members.splice(at, 1);
    }
    this.members[list]!.push(slot);
    this.listOf[slot] = list;
  }

  /** Slots placed so far. */
  get placed(): number {
    return this.listOf.length;
  }

  /**
   * The `k` best slots for the unit vector `q` among the members of its `probes` nearest lists, at
   * least `minScore` similar, best first.
   */
  search(vectors: Float32Array, q: Float32Array, k: number, probes: number, minScore = -1): IvfHit[] {
    const d = this.dims;
    const lists = this.lists;
    const scores = new Float32Array(lists);
    for (let c = 0; c < lists; c++) scores[c] = dotAt(q, 0, this.fine, c * d, d);
    const order = Array.from({ length: lists }, (_, c) => c).sort((a, b) => scores[b]! - scores[a]!);
    const top: IvfHit[] = [];
    let floor = minScore;
    for (const c of order.slice(0, Math.max(1, probes))) {
      for (const slot of this.members[c]!) {
        const score = dotAt(q, 0, vectors, slot * d, d);
        if (score < floor) continue;
        let at = top.length;
        while (at > 0 && top[at - 1]!.score < score) at--;
        top.splice(at, 0, { slot, score });
        if (top.length > k) top.pop();
        if (top.length === k) floor = Math.max(floor, top[k - 1]!.score);
      }
    }
    return top;
  }
}

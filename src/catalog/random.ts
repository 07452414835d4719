/**
 * Seeded randomness for the catalog generator. Math.random cannot be seeded, and the seed must
 * reproduce the same catalog on every machine, so this is a small self-contained PRNG.
 */

export type Rng = () => number;

/** mulberry32: 32-bit state, fast, good enough for synthetic data (not for secrets). */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes a seed with a stream name and index so each entity gets its own independent stream. */
export function deriveSeed(seed: number, stream: string, index = 0): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (let i = 0; i < stream.length; i++) h = Math.imul(h ^ stream.charCodeAt(i), 0x01000193) >>> 0;
  h = Math.imul(h ^ index, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

export function rngFor(seed: number, stream: string, index = 0): Rng {
  return mulberry32(deriveSeed(seed, stream, index));
}

export function int(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

export function chance(rng: Rng, p: number): boolean {
  return rng() < p;
}

/** Standard normal via Box–Muller. */
export function normal(rng: Rng): number {
  const u = 1 - rng();
  const v = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export function logNormal(rng: Rng, median: number, sigma: number): number {
  return median * Math.exp(sigma * normal(rng));
}

/** Pareto with minimum xm and shape alpha (smaller alpha = heavier tail). */
export function pareto(rng: Rng, xm: number, alpha: number): number {
  return xm / Math.pow(1 - rng(), 1 / alpha);
}

/** `count` distinct items in random order. */
export function sample<T>(rng: Rng, items: readonly T[], count: number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < count && pool.length) out.push(pool.splice(Math.floor(rng() * pool.length), 1)[0]!);
  return out;
}

/** Weighted sampler over fixed weights: O(log n) per draw via a cumulative table. */
export function weightedSampler(weights: readonly number[]): (rng: Rng) => number {
  const cumulative = new Float64Array(weights.length);
  let total = 0;
  weights.forEach((w, i) => {
    total += w;
    cumulative[i] = total;
  });
  return (rng) => {
    const target = rng() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! <= target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

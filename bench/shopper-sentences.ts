import { TAXONOMY, REGIONS } from '../src/catalog/taxonomy';
import { int, pick, rngFor } from '../src/catalog/random';

/**
 * Shopper sentences that are all different, for loading the semantic tier where no cache can help
 * (bench/recommend.ts, bench/embedding.ts): a template × a product noun of the seeded taxonomy × one
 * of its adjectives × a budget within its category's price range × who it is for or where it ships.
 * Deterministic (seeded), so every run sends the same sentences in the same order; distinct after the
 * semantic tier's normalisation (trimmed, lower-cased, single spaces), the key of both its caches.
 */

const WHO = [
  'my dad',
  'my mum',
  'a teenager',
  'my partner',
  'a coworker',
  'my sister',
  'a new homeowner',
  'a college student',
  'my grandmother',
  'a ten year old',
  'a runner',
  'someone who travels a lot',
];

const OCCASIONS = ['a birthday', 'a housewarming', 'the holidays', 'a weekend trip', 'back to school', 'an anniversary'];

type Parts = { adj: string; noun: string; budget: number; who: string; occasion: string; region: string };

/** "a" or "an" before `word`, by its first letter (close enough for these words). */
const a = (word: string) => `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;

const TEMPLATES: Array<(p: Parts) => string> = [
  (p) => `looking for ${a(p.adj)} ${p.noun} under $${p.budget}`,
  (p) => `${p.adj} ${p.noun} for ${p.who}`,
  (p) => `need ${a(p.noun)} that is ${p.adj}, budget around $${p.budget}`,
  (p) => `gift idea: ${p.adj} ${p.noun} for ${p.who} under $${p.budget}`,
  (p) => `best ${p.adj} ${p.noun} under ${p.budget} dollars`,
  (p) => `can you find me ${a(p.noun)}, something ${p.adj}`,
  (p) => `${p.noun} for ${p.who}, ${p.adj} please, ships to ${p.region}`,
  (p) => `I want a cheap ${p.adj} ${p.noun} for ${p.occasion}`,
  (p) => `recommend ${a(p.adj)} ${p.noun} for ${p.occasion}, no more than $${p.budget}`,
  (p) => `what's a good ${p.noun} for ${p.who}? ${p.adj} would be nice`,
];

const normalise = (text: string) => text.trim().toLowerCase().replace(/\s+/g, ' ');

/** `count` distinct sentences, the same ones in the same order on every call. */
export function distinctShopperSentences(count: number, seed = 20261128): string[] {
  const kinds = TAXONOMY.flatMap((l1) => l1.children);
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; out.length < count; i++) {
    if (i > count * 20) throw new Error(`only ${out.length} distinct sentences found of ${count} asked for`);
    const rng = rngFor(seed, 'shopper-sentence', i);
    const kind = pick(rng, kinds);
    const parts: Parts = {
      adj: pick(rng, kind.adjectives),
      noun: pick(rng, kind.nouns),
      budget: int(rng, Math.max(5, Math.round(kind.price[0] * 1.2)), Math.max(10, kind.price[1])),
      who: pick(rng, WHO),
      occasion: pick(rng, OCCASIONS),
      region: pick(rng, REGIONS).name,
    };
    const sentence = pick(rng, TEMPLATES)(parts);
    const key = normalise(sentence);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(sentence);
  }
  return out;
}

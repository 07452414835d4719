/**
 * The one reading of a shopper's sentence into words that both GET /v1/recommend (its keywords,
 * src/recommend/understand.ts) and intents (their intent_tags, src/matching/intent-text.ts) use:
 * normalizing, splitting into words and parts, the stop and filler words, and the phrases that name
 * no product (budget, region, budget words, filler phrases, and the numbers with their measure words
 * of src/text/measures.ts). Pure and dependency-free; the lowest layer of reading text.
 */
import { findMeasures, type Measure } from './measures';

export function normalizeQuery(raw: string): string {
  return (
    raw
      .toLowerCase()
      .normalize('NFKC')
      // Marks after a number are inches and feet (55" TV, an 8'x10' rug): the punctuation rule below
      // would drop them and the size with them. NFKC writes a double prime as two primes.
      .replace(/(\d)\s*(?:"|″|′′|”|'')/g, '$1 inch ')
      .replace(/(\d)\s*(?:'|′|’)(?=x\s?\d|[^\p{L}\p{N}]|$)/gu, '$1 ft ')
      .replace(/(\d)\s*×\s*(?=\d)/g, '$1x')
      .replace(/[^\p{L}\p{N}$.\-\s]/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

// ---------------------------------------------------------------------------------------------
// Word lists

export const STOP_WORDS = new Set(
  (
    'a am an and are as at be best buy for from good great i in is it me my need of on or please some something that the this to under over below above less more than with want looking find get new between around about dollars dollar usd bucks ship ships shipped shipping deliver delivers delivered delivery ' +
    'you your our his her its their them they he she we us who whom which what where when how was has have had can could would should will just really very also any all so but if not no do does did getting give giving into one whose whats im ive'
  ).split(' '),
);

/** Words that carry no product meaning but are not grammatical stop words. */
export const FILLER_WORDS = new Set(
  (
    'gift gifts present presents idea ideas recommend recommendation recommendations suggest suggestion suggestions birthday christmas xmas holiday holidays anniversary valentine valentines graduation ' +
    'stocking stuffer stuffers love loves loved like likes enjoy enjoys enjoying obsessed lover lovers fan fans enthusiast enthusiasts someone somebody anyone person people stuff thing things item items product products ' +
    'perfect cool nice awesome unique special popular trending viral rated quality option options shop shopping purchase order cute fun help'
  ).split(' '),
);

/** Filler spanning words, matched before categories so "top rated" does not name Tops & Blouses, nor "working from home" Home & Kitchen. */
export const FILLER_PHRASES = [
  'top rated',
  'top notch',
  'top brand',
  'top pick',
  'top selling',
  'top gift',
  'top 3',
  'top 5',
  'top 10',
  'work from home',
  'working from home',
];

export type BudgetWordKind = 'cheap' | 'premium';
export const BUDGET_WORDS: Array<[BudgetWordKind, string[]]> = [
  ['cheap', ['cheap', 'cheaper', 'cheapest', 'affordable', 'inexpensive', 'budget', 'budget friendly', 'bargain', 'low cost']],
  ['premium', ['premium', 'luxury', 'luxurious', 'high end', 'splurge', 'upscale']],
];

// ---------------------------------------------------------------------------------------------
// Words and parts

export interface Word {
  text: string;
  start: number;
}

/** A word, or one piece of a hyphenated word, with the singular key vocabularies are looked up by. */
export interface Part {
  key: string;
  word: number;
  start: number;
  end: number;
}

const IRREGULAR: Record<string, string> = {
  men: 'man',
  women: 'woman',
  children: 'child',
  grandchildren: 'grandchild',
  mice: 'mouse',
  sunnies: 'sunnies',
};

export function singular(word: string): string {
  return IRREGULAR[word] ?? IRREGULAR[stripPlural(word)] ?? stripPlural(word);
}

function stripPlural(w: string): string {
  if (w.length <= 3 || /(?:ss|us|is)$/.test(w)) return w;
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (/(?:ches|shes|sses|xes|zes)$/.test(w)) return w.slice(0, -2);
  return w.endsWith('s') ? w.slice(0, -1) : w;
}

export function splitWords(normalized: string): Word[] {
  const words: Word[] = [];
  for (const m of normalized.matchAll(/\S+/g)) {
    const lead = /^[.\-$]*/.exec(m[0])![0].length;
    const text = m[0].slice(lead).replace(/[.-]+$/, '');
    if (text) words.push({ text, start: m.index + lead });
  }
  return words;
}

/** Hyphenated words match by their pieces ("t-shirts" ~ "t shirts"); a lone "s" is a lost apostrophe ("men's"). */
export function splitParts(words: Word[]): Part[] {
  const parts: Part[] = [];
  words.forEach((w, word) => {
    for (const m of w.text.matchAll(/[^-]+/g)) {
      if (m[0] === 's') continue;
      parts.push({ key: singular(m[0]), word, start: w.start + m.index, end: w.start + m.index + m[0].length });
    }
  });
  return parts;
}

/** The key sequence a table phrase is stored under, so table and query are compared alike. */
export function phraseKey(phrase: string): string {
  return splitParts(splitWords(normalizeQuery(phrase)))
    .map((p) => p.key)
    .join(' ');
}

// ---------------------------------------------------------------------------------------------
// A reading: the parts of a sentence and which of them a phrase has taken

export interface Reading {
  parts: Part[];
  /** Parts taken by the budget, region, budget words, filler phrases or measures: no category or audience may use them. */
  blocked: boolean[];
  /** Parts whose key was replaced by a typo correction. */
  corrected: boolean[];
}

export interface Span {
  from: number;
  to: number;
}

/** Where `phrase` occurs in `normalized` starting at a word, as a character range. */
export function phraseRange(normalized: string, phrase: string): { start: number; end: number } | null {
  if (!phrase) return null;
  let at = normalized.indexOf(phrase);
  while (at > 0 && normalized[at - 1] !== ' ') at = normalized.indexOf(phrase, at + 1);
  return at < 0 ? null : { start: at, end: at + phrase.length };
}

/** Marks the parts starting inside the character range. */
export function blockRange(reading: Reading, range: { start: number; end: number }): void {
  reading.parts.forEach((p, i) => {
    if (p.start >= range.start && p.start < range.end) reading.blocked[i] = true;
  });
}

/** Finds the phrases of `table` in the parts not blocked or `taken`, longest first; each part is used once. */
export function findPhrases<T>(reading: Reading, table: Map<string, T>, longest: number, taken: Span[] = []): Array<Span & { value: T }> {
  const found: Array<Span & { value: T }> = [];
  const used = reading.blocked.slice();
  for (const t of taken) for (let i = t.from; i <= t.to; i++) used[i] = true;
  const { parts } = reading;
  for (let n = Math.min(longest, parts.length); n >= 1; n--) {
    for (let from = 0; from + n <= parts.length; from++) {
      let free = true;
      for (let i = from; i < from + n && free; i++) free = !used[i];
      if (!free) continue;
      let key = parts[from]!.key;
      for (let i = from + 1; i < from + n; i++) key += ` ${parts[i]!.key}`;
      const value = table.get(key);
      if (value === undefined) continue;
      found.push({ from, to: from + n - 1, value });
      for (let i = from; i < from + n; i++) used[i] = true;
    }
  }
  return found.sort((a, b) => a.from - b.from);
}

export function isFree(reading: Reading, span: Span, taken: Span[]): boolean {
  for (let i = span.from; i <= span.to; i++) if (reading.blocked[i]) return false;
  return !taken.some((t) => t.from <= span.to && span.from <= t.to);
}

export const keyOf = (reading: Reading, span: Span) =>
  reading.parts
    .slice(span.from, span.to + 1)
    .map((p) => p.key)
    .join(' ');

/** The words of a span as the shopper wrote them (normalized). */
export const spanText = (normalized: string, reading: Reading, span: Span) =>
  normalized.slice(reading.parts[span.from]!.start, reading.parts[span.to]!.end);

export const longestPhrase = (table: Map<string, unknown>) => Math.max(...[...table.keys()].map((k) => k.split(' ').length));

/** A table of phrases keyed as the query will be. */
export function keyed<T>(groups: Array<[T, string[]]>): Map<string, T> {
  return new Map(groups.flatMap(([value, phrases]) => phrases.map((p) => [phraseKey(p), value] as const)));
}

const BUDGET_WORD_TABLE = keyed(BUDGET_WORDS);
const BUDGET_WORD_LONGEST = longestPhrase(BUDGET_WORD_TABLE);
const FILLER_PHRASE_TABLE = keyed([[true, FILLER_PHRASES]]);
const FILLER_PHRASE_LONGEST = longestPhrase(FILLER_PHRASE_TABLE);

export interface SentenceReading {
  normalized: string;
  words: Word[];
  reading: Reading;
  /** The first budget word ("cheap", "luxury"), which GET /v1/recommend turns into a price cut. */
  budgetWord: { kind: BudgetWordKind; phrase: string } | undefined;
  /** Numbers with their measure words ("4 person", "12 oz", "2-pack", "size 10"): src/text/measures.ts. */
  measures: Measure[];
}

/**
 * Splits a normalized sentence and takes the phrases no product or person is named by: the budget
 * and region phrases (found by the caller, src/matching/intent-text.ts), budget words, filler
 * phrases and measures. What is left is read for categories, audiences and keywords.
 */
export function readSentence(
  normalized: string,
  found: { budgetPhrase?: string | null; regionPhrase?: string | null } = {},
): SentenceReading {
  const taken = [found.budgetPhrase, found.regionPhrase && normalizeQuery(found.regionPhrase)].flatMap((phrase) => {
    const range = phrase ? phraseRange(normalized, phrase) : null;
    return range ? [range] : [];
  });
  const { words, reading, measures } = readMeasuredWords(normalized, taken);
  for (const range of taken) blockRange(reading, range);
  const budgetWords = findPhrases(reading, BUDGET_WORD_TABLE, BUDGET_WORD_LONGEST);
  const filler = findPhrases(reading, FILLER_PHRASE_TABLE, FILLER_PHRASE_LONGEST);
  for (const span of [...budgetWords, ...filler]) for (let i = span.from; i <= span.to; i++) reading.blocked[i] = true;
  const first = budgetWords[0];
  return { normalized, words, reading, budgetWord: first && { kind: first.value, phrase: spanText(normalized, reading, first) }, measures };
}

/**
 * The words and parts of normalized text with its measures found and their parts blocked, and
 * nothing else: how a product's own text is read (it has no budget or filler to take out).
 */
export function readMeasuredWords(
  normalized: string,
  taken: Array<{ start: number; end: number }> = [],
): Omit<SentenceReading, 'budgetWord'> {
  const words = splitWords(normalized);
  const parts = splitParts(words);
  const reading: Reading = { parts, blocked: parts.map(() => false), corrected: parts.map(() => false) };
  const measures = findMeasures(normalized, taken);
  for (const m of measures) blockRange(reading, m);
  return { normalized, words, reading, measures };
}

/** A word that may be a keyword: not a stop or filler word, not a bare number, longer than one letter. */
export function isContentWord(text: string): boolean {
  return text.length > 1 && !STOP_WORDS.has(text) && !FILLER_WORDS.has(text) && !/^\d+(?:[.,]\d+)*$/.test(text);
}

/**
 * The content words in sentence order, de-duplicated, as written (normalized): a word goes when all
 * its parts were taken (by the reading's blocked phrases, or by `alsoTaken`, e.g. a person).
 */
export function contentWords(sentence: SentenceReading, alsoTaken?: boolean[]): string[] {
  const { words, reading } = sentence;
  const partsOf = new Map<number, number[]>();
  reading.parts.forEach((p, i) => partsOf.set(p.word, [...(partsOf.get(p.word) ?? []), i]));
  const kept = words.filter((w, i) => {
    const parts = partsOf.get(i) ?? [];
    if (parts.length && parts.every((p) => reading.blocked[p] || alsoTaken?.[p])) return false;
    return isContentWord(w.text);
  });
  return [...new Set(kept.map((w) => w.text))];
}

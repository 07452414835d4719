/**
 * What the gateway reads out of a shopper's words when the caller did not say it explicitly:
 * a normalized query, keyword tags, a budget ("under $50", "$20-40", "between 20 and 40 dollars")
 * and a ship-to region ("in Canada", "to the UK"). Deterministic and dependency-free; the words
 * themselves are read by src/text/words.ts, the same reading GET /v1/recommend takes its keywords from.
 */
import { findAges } from '../text/measures';
import { contentWords, normalizeQuery, readSentence } from '../text/words';

export { normalizeQuery };

const REGION_NAMES: Record<string, string> = {
  us: 'US',
  usa: 'US',
  'united states': 'US',
  america: 'US',
  canada: 'CA',
  ca: 'CA',
  uk: 'GB',
  'united kingdom': 'GB',
  britain: 'GB',
  england: 'GB',
  gb: 'GB',
  germany: 'DE',
  france: 'FR',
  spain: 'ES',
  italy: 'IT',
  netherlands: 'NL',
  japan: 'JP',
  australia: 'AU',
  mexico: 'MX',
  brazil: 'BR',
  india: 'IN',
  singapore: 'SG',
  korea: 'KR',
};

export interface ParsedBudget {
  min?: number;
  max?: number;
  phrase: string;
}

const money = String.raw`\$?\s?(\d+(?:[.,]\d{1,2})?)\s?(?:k\b)?\s?(?:dollars?|usd|bucks)?`;
const BUDGET_PATTERNS: Array<[RegExp, (a: number, b?: number) => Omit<ParsedBudget, 'phrase'>]> = [
  [new RegExp(String.raw`between\s+${money}\s+and\s+${money}`, 'i'), (a, b) => ({ min: Math.min(a, b!), max: Math.max(a, b!) })],
  [new RegExp(String.raw`${money}\s?(?:-|–|to)\s?${money}`, 'i'), (a, b) => ({ min: Math.min(a, b!), max: Math.max(a, b!) })],
  [
    new RegExp(String.raw`(?:under|below|less than|no more than|max(?:imum)?|up to|at most|cheaper than|within)\s+${money}`, 'i'),
    (a) => ({ max: a }),
  ],
  [new RegExp(String.raw`(?:over|above|more than|at least|min(?:imum)?)\s+${money}`, 'i'), (a) => ({ min: a })],
  [
    new RegExp(String.raw`(?:around|about|roughly|~)\s*${money}`, 'i'),
    (a) => ({ min: Math.round(a * 0.8 * 100) / 100, max: Math.round(a * 1.2 * 100) / 100 }),
  ],
];

const amount = (s: string) => Number(s.replace(',', '.'));

/**
 * The largest amount a budget read from text may carry, in dollars: the bound of an explicit
 * `budget_range`. "under $3000000000" means no effective cap, so it is read as this cap; budgets
 * become cents in integer columns, and an unbounded number read from free text must never reach one.
 */
export const MAX_TEXT_BUDGET_USD = 10_000_000;
const bounded = (v: number | undefined) => (v === undefined ? undefined : Math.min(v, MAX_TEXT_BUDGET_USD));

export function parseBudget(text: string): ParsedBudget | null {
  for (const [re, build] of BUDGET_PATTERNS) {
    const m = re.exec(text);
    if (!m) continue;
    // A bare number without a currency sign or word is too ambiguous ("2 pack", "size 10") except after budget words.
    const values = m
      .slice(1)
      .filter((v) => v !== undefined)
      .map(amount);
    if (values.some((v) => !Number.isFinite(v) || v <= 0)) continue;
    const built = build(values[0]!, values[1]);
    const range = { min: bounded(built.min), max: bounded(built.max) };
    if (range.min === undefined) delete range.min;
    if (range.max === undefined) delete range.max;
    const isRange = re.source.startsWith(String.raw`\$`);
    if (isRange && !/\$|dollar|usd|bucks/i.test(m[0])) continue;
    return { ...range, phrase: m[0].trim() };
  }
  return null;
}

export function parseRegion(text: string): { code: string; phrase: string } | null {
  // The place name is read in a lookahead so "for someone in the UK" still sees "in the UK".
  const m = /\b(?:in|to|for|from)\s+(?:the\s+)?(?=([a-z]+(?:\s[a-z]+)?))/gi;
  for (const hit of text.matchAll(m)) {
    const words = hit[1]!.toLowerCase();
    const two = REGION_NAMES[words] ? words : undefined;
    const one = words.split(' ')[0]!;
    let name = two ?? (REGION_NAMES[one] ? one : undefined);
    // "us" is a pronoun far more often than a country: only the upper-case "US" counts.
    if (name === 'us' && hit[1]!.slice(0, 2) !== 'US') name = undefined;
    if (name) return { code: REGION_NAMES[name]!, phrase: `${hit[0]}${hit[1]!.slice(0, name.length)}`.trim() };
  }
  return null;
}

/** At most this many tags are read from one text. */
const MAX_TAGS = 20;

/**
 * An intent's tags when the caller gives none: the content words of the text, read the way GET
 * /v1/recommend reads its keywords (src/text/words.ts): no stop words ("who", "my", "for"), no filler
 * ("gift", "likes", "something"), no budget or region phrase, no budget words, no numbers with their
 * measure words ("4 person", "12 oz"). Unlike the recommend keywords, the words naming a person
 * ("dad", "men") stay: an intent carries no audience read from text, and merchants subscribe to them.
 * `budgetPhrase` is the budget already read from the text, when the caller has it.
 */
export function keywordTags(text: string, budgetPhrase?: string): string[] {
  const normalized = normalizeQuery(text);
  const budget = budgetPhrase === undefined ? parseBudget(normalized)?.phrase : normalizeQuery(budgetPhrase);
  const sentence = readSentence(normalized, { budgetPhrase: budget, regionPhrase: parseRegion(text)?.phrase });
  // A stated age ("a 7 year old") says who, like "dad", but its words ("year", "old") name nothing a merchant sells.
  const { reading } = sentence;
  const ages = findAges(normalized);
  const age = reading.parts.map((p) => ages.some((r) => p.start >= r.start && p.start < r.end));
  return contentWords(sentence, age).slice(0, MAX_TAGS);
}

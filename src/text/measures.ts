/**
 * Numbers with the measure words bound to them, read from normalized text (src/text/words.ts
 * normalizeQuery): how many people ("4 person", "two-person", "sleeps 6", "2-man", "4p"), how many
 * items ("2-pack", "set of 4", "pack of 12", "24 count", "1000 piece", "a dozen"), an amount with its
 * unit ("12 oz", "750 ml", "1 lb", "500 g", "20 L", "55 inch", "65w", "20000 mah", "1 tb"),
 * dimensions ("8x10", "5 x 7 ft") and a stated size ("size 10", "size m", "4t").
 *
 * These phrases leave a sentence's keywords and tags: their words ("person", "oz", "pack") find
 * anything full-text, and titles spell the same measure many ways ("4P", "Sleeps 4", "4-Person"), so
 * they are compared as values instead (src/recommend/attributes.ts). Ages ("10 year old") are not
 * measures. Pure and dependency-free.
 */

export type AmountDimension = 'volume' | 'mass' | 'ounce' | 'length' | 'power' | 'charge' | 'storage' | 'cups';

/** Every amount is held in one base unit per dimension: ml, g, oz, mm, W, mAh, GB, cups. */
export type Measure = { start: number; end: number; text: string } & (
  | { kind: 'capacity'; min: number; max: number }
  | { kind: 'pack'; count: number }
  | { kind: 'amount'; dimension: AmountDimension; min: number; max: number; unit: string }
  /** The numbers as written; `mmPerUnit` converts them to millimetres when a unit was written. */
  | { kind: 'dimensions'; values: number[]; mmPerUnit: number | null }
  | { kind: 'size'; value: string }
);

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};

/**
 * Units, by the spelling after the number, to [dimension, base units per unit]. "oz" is its own
 * dimension: fluid ounces beside a volume and ounces of weight beside a mass (attributes.ts).
 */
const UNITS: Record<string, [AmountDimension, number]> = {};
/** Unit spellings as written (for the pattern); UNITS is keyed without spaces and dots. */
const SPELLINGS: string[] = [];
const compact = (spelling: string) => spelling.replace(/[\s.]+/g, '');
const unit = (dimension: AmountDimension, factor: number, spellings: string) => {
  for (const s of spellings.split('|')) {
    SPELLINGS.push(s);
    UNITS[compact(s)] = [dimension, factor];
  }
};
unit('volume', 1, 'ml|milliliter|milliliters|millilitre|millilitres');
unit('volume', 10, 'cl|centiliter|centiliters|centilitre|centilitres');
unit('volume', 1000, 'l|liter|liters|litre|litres|ltr');
unit('volume', 29.5735, 'fl oz|fl. oz|floz|fluid ounce|fluid ounces');
unit('volume', 3785.41, 'gallon|gallons|gal');
unit('volume', 946.353, 'quart|quarts|qt');
unit('volume', 473.176, 'pint|pints');
unit('ounce', 1, 'oz|ounce|ounces');
unit('mass', 0.001, 'mg');
unit('mass', 1, 'g|gram|grams|gramme|grammes');
unit('mass', 1000, 'kg|kilo|kilos|kilogram|kilograms');
unit('mass', 453.592, 'lb|lbs|pound|pounds');
unit('length', 1, 'mm|millimeter|millimeters|millimetre|millimetres');
unit('length', 10, 'cm|centimeter|centimeters|centimetre|centimetres');
unit('length', 1000, 'm|meter|meters|metre|metres');
unit('length', 25.4, 'in|inch|inches');
unit('length', 304.8, 'ft|foot|feet');
unit('power', 1, 'w|watt|watts');
unit('power', 1000, 'kw');
unit('charge', 1, 'mah');
unit('storage', 1, 'gb');
unit('storage', 1000, 'tb');
unit('cups', 1, 'cup|cups');

const alternation = (words: string[]) =>
  [...words]
    .sort((a, b) => b.length - a.length)
    .map((w) => w.replace(/[.]/g, '\\.?').replace(/ /g, '\\s?'))
    .join('|');

const UNIT = alternation(SPELLINGS);
const LENGTH_UNIT = alternation(SPELLINGS.filter((u) => UNITS[compact(u)]![0] === 'length'));
const NUM = String.raw`\d+(?:\.\d+)?`;
const WORD_NUM = `${NUM}|${Object.keys(NUMBER_WORDS).join('|')}`;
/** Between a number and its word: "4 person", "4-person", "4person". */
const SEP = String.raw`\s?-?\s?`;
/** A phrase starts where no letter, digit or decimal point comes before it, and ends before a letter or digit. */
const B = String.raw`(?<![\p{L}\p{N}.])`;
const E = String.raw`(?![\p{L}\p{N}])`;

const LETTER_SIZES = 'xxxs|xxs|xs|s|m|l|xl|xxl|xxxl|[2-6]xl|x-large|xx-large|xxx-large|x-small|xx-small|small|medium|large';
const BED_SIZES = 'twin xl|twin|full|double|single|queen|king|california king|cal king|super king';

type Build = (m: RegExpExecArray) => Omit<Measure, 'start' | 'end' | 'text'> | null;

const num = (s: string | undefined): number => (s === undefined ? NaN : (NUMBER_WORDS[s] ?? Number(s)));
const unitOf = (s: string) => UNITS[compact(s)];
const range = (a: number, b: number) => ({ min: Math.min(a, b), max: Math.max(a, b) });

/** Where two patterns match the same words, the earlier one in this list wins. */
const PATTERNS: Array<[RegExp, Build]> = [
  // Dimensions: "8x10", "8 x 10 ft", "60 by 80 inches", "8 ft x 10 ft", "12x12x4 in".
  [
    new RegExp(
      `${B}(${NUM})\\s?(${LENGTH_UNIT})?\\s?(?:x|by)\\s?(${NUM})\\s?(${LENGTH_UNIT})?(?:\\s?(?:x|by)\\s?(${NUM})\\s?(${LENGTH_UNIT})?)?${E}`,
      'gu',
    ),
    (m) => {
      const values = [m[1], m[3], m[5]].filter((v): v is string => v !== undefined).map(Number);
      const written = m[6] ?? m[4] ?? m[2];
      return { kind: 'dimensions', values, mmPerUnit: written ? unitOf(written)![1] : null };
    },
  ],
  // A range of people: "2-4 person", "2 to 4 players".
  [
    new RegExp(`${B}(${NUM})\\s?(?:-|to)\\s?(${NUM})${SEP}(?:persons?|people|players?)${E}`, 'gu'),
    (m) => ({ kind: 'capacity', ...range(num(m[1]), num(m[2])) }),
  ],
  // People: "4 person", "two-person", "2-man", "6 seater", "4 players", "sleeps 6", "family of 4", "4p".
  [
    new RegExp(`${B}(${WORD_NUM})${SEP}(?:persons?|people|man|men|seaters?|players?)${E}`, 'gu'),
    (m) => ({ kind: 'capacity', min: num(m[1]), max: num(m[1]) }),
  ],
  [new RegExp(`${B}(?:sleeps|seats|family of)\\s(${WORD_NUM})${E}`, 'gu'), (m) => ({ kind: 'capacity', min: num(m[1]), max: num(m[1]) })],
  [new RegExp(`${B}([1-9])p${E}`, 'gu'), (m) => ({ kind: 'capacity', min: num(m[1]), max: num(m[1]) })],
  // Items: "2-pack", "24 count", "24ct", "1000 piece", "3 pairs", "pack of 12", "set of 4", "twin pack", "dozen".
  [
    // "18ct gold" is carats.
    new RegExp(
      `${B}(${WORD_NUM})${SEP}(?:packs?|pk|pks|counts?|ct|pcs|pc|pieces?|pairs?)${E}(?!\\s(?:gold|white gold|rose gold|diamond))`,
      'gu',
    ),
    // "one piece" is a swimsuit.
    (m) => (m[1] === 'one' ? null : { kind: 'pack', count: num(m[1]) }),
  ],
  [
    new RegExp(`${B}(?:pack|set|box|case|bundle|bag|carton|pair)\\sof\\s(${WORD_NUM})${E}`, 'gu'),
    (m) => ({ kind: 'pack', count: num(m[1]) }),
  ],
  [new RegExp(`${B}twin${SEP}pack${E}`, 'gu'), () => ({ kind: 'pack', count: 2 })],
  [
    new RegExp(`${B}(?:(${WORD_NUM})\\s)?(half\\s(?:a\\s)?)?dozen${E}`, 'gu'),
    (m) => ({ kind: 'pack', count: (m[1] ? num(m[1]) : 1) * (m[2] ? 6 : 12) }),
  ],
  // A range of an amount: "32-70 inch", "8 to 12 cups".
  [
    new RegExp(`${B}(${NUM})\\s?(?:-|to)\\s?(${NUM})${SEP}(${UNIT})${E}`, 'gu'),
    (m) => {
      const [dimension, factor] = unitOf(m[3]!)!;
      return { kind: 'amount', dimension, ...range(num(m[1]) * factor, num(m[2]) * factor), unit: m[3]! };
    },
  ],
  // An amount: "12 oz", "750ml", "1.5 l", "55 inch", "65w". "in" only written onto the number ("15in":
  // "2 in 1" is not inches), and "5g" alone is a phone network.
  [
    new RegExp(`${B}(${NUM})${SEP}(${UNIT})${E}`, 'gu'),
    (m) => {
      const spelled = m[2]!;
      if (spelled === 'in' && m[0] !== `${m[1]}in`) return null;
      if (spelled === 'g' && /^[2-5]g$/.test(m[0])) return null;
      const [dimension, factor] = unitOf(spelled)!;
      const value = num(m[1]) * factor;
      return { kind: 'amount', dimension, min: value, max: value, unit: spelled };
    },
  ],
  // A stated size: "size 10", "size 9.5", "sz m", "size queen"; toddler sizes "4t".
  [new RegExp(`${B}(?:size|sz)\\s(${NUM}|${LETTER_SIZES}|${BED_SIZES})${E}`, 'gu'), (m) => ({ kind: 'size', value: m[1]! })],
  [new RegExp(`${B}([2-6])t${E}`, 'gu'), (m) => ({ kind: 'size', value: `${m[1]}t` })],
];

/** Ages are people, not measures: "10 year old", "18-month-old", "7 yo", "ages 3-5", "3+". */
const AGES = new RegExp(
  `${B}(?:${NUM})\\s?-?\\s?(?:years?|yrs?|months?|mos?|weeks?|wks?)\\s?-?\\s?olds?${E}|${B}${NUM}\\s?yo${E}|${B}ages?\\s${NUM}(?:\\s?(?:-|to)\\s?${NUM})?\\+?`,
  'gu',
);

/** Every pattern needs a digit or one of these words: most text is passed over with one test. */
const MAY_MEASURE = new RegExp(`\\d|\\b(?:${Object.keys(NUMBER_WORDS).join('|')}|dozen|twin|size|sz)\\b`);

type Range = { start: number; end: number };

/** Where `normalized` states an age ("10 year old", "7 yo", "ages 3-5"), as character ranges. */
export function findAges(normalized: string): Range[] {
  return [...normalized.matchAll(AGES)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
}
const overlaps = (a: Range, b: Range) => a.start < b.end && b.start < a.end;

/**
 * The measures of `normalized`, in text order, none overlapping another or a range of `taken`
 * (the budget and region phrases). The leftmost match wins, the longest at one place.
 */
export function findMeasures(normalized: string, taken: Range[] = []): Measure[] {
  if (!MAY_MEASURE.test(normalized)) return [];
  const blocked: Range[] = [...taken];
  blocked.push(...findAges(normalized));
  const candidates: Array<Measure & { order: number }> = [];
  PATTERNS.forEach(([re, build], order) => {
    re.lastIndex = 0;
    for (const m of normalized.matchAll(re)) {
      const span = { start: m.index, end: m.index + m[0].length };
      if (blocked.some((b) => overlaps(b, span))) continue;
      const read = build(m as RegExpExecArray);
      if (!read || Object.values(read).some((v) => typeof v === 'number' && !Number.isFinite(v))) continue;
      candidates.push({ ...read, ...span, text: m[0], order } as Measure & { order: number });
    }
  });
  // Leftmost first, then the longest there: "12 pack of 12 oz cans" is 12 items of 12 oz each.
  candidates.sort((a, b) => a.start - b.start || b.end - a.end || a.order - b.order);
  const chosen: Measure[] = [];
  for (const { order: _order, ...c } of candidates) if (!chosen.some((o) => overlaps(o, c))) chosen.push(c as Measure);
  return chosen.sort((a, b) => a.start - b.start);
}
